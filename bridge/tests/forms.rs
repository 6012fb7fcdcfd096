//! Declarative form tools in a real browser page: the schema built from each kind of field, descriptions,
//! exclusions and required fields; filling as a visitor would; submitting or not; fields that block the submit;
//! `respondWith`; forms that come, change and go; and a form tool called from a frame over window messages.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(module = "/tests/forms_helpers.js")]
extern "C" {
    #[wasm_bindgen(thread_local_v2, js_name = warnings)]
    static WARNINGS: js_sys::Array;
    #[wasm_bindgen(js_name = nextTask)]
    fn next_task(ms: u32) -> Promise;
    #[wasm_bindgen(js_name = addHtml)]
    fn add_html(html: &str) -> web_sys::Element;
    #[wasm_bindgen(js_name = addForm)]
    fn add_form(html: &str) -> web_sys::Element;
    #[wasm_bindgen(js_name = toolChanges)]
    fn tool_changes(mc: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = toolNamed)]
    fn tool_named(mc: &JsValue, name: &str, timeout_ms: u32) -> Promise;
    #[wasm_bindgen(js_name = toolNames)]
    fn tool_names(mc: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = callTool)]
    fn call_tool(mc: &JsValue, name: &str, args: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = countEvents)]
    fn count_events(form: &web_sys::Element) -> JsValue;
    #[wasm_bindgen(js_name = watchSubmits)]
    fn watch_submits(form: &web_sys::Element, behaviour: &str, value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = formValues)]
    fn form_values(form: &web_sys::Element) -> JsValue;
    #[wasm_bindgen(js_name = validationMessage)]
    fn validation_message(form: &web_sys::Element, name: &str) -> String;
    #[wasm_bindgen(js_name = consumerFrame)]
    fn consumer_frame() -> Promise;
    #[wasm_bindgen(js_name = requestFromFrame)]
    fn request_from_frame(frame: &JsValue, message: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = respondLater)]
    fn respond_later(form: &web_sys::Element) -> JsValue;
    #[wasm_bindgen(js_name = valuesAtToolActivated)]
    fn values_at_tool_activated(target: &JsValue, name: &str, form: &web_sys::Element, field: &str) -> JsValue;
    #[wasm_bindgen(js_name = blankFrameWith)]
    fn blank_frame_with(html: &str) -> JsValue;
    #[wasm_bindgen(js_name = formFromFramelessDocument)]
    fn form_from_frameless_document(html: &str, operation: &str) -> web_sys::Element;
    #[wasm_bindgen(js_name = formsInFramelessDocuments)]
    fn forms_in_frameless_documents(html: &str) -> JsValue;
    #[wasm_bindgen(js_name = stopBeingToolOnInput)]
    fn stop_being_tool_on_input(form: &web_sys::Element, how: &str);
    #[wasm_bindgen(js_name = countToolEvents)]
    fn count_tool_events(target: &JsValue, name: &str) -> JsValue;
    #[wasm_bindgen(js_name = loadSrcdoc)]
    fn load_srcdoc(frame: &web_sys::Element, html: &str) -> Promise;
    #[wasm_bindgen(js_name = namesListedRightAfterAdding)]
    fn names_listed_right_after_adding(mc: &JsValue, html: &str) -> Promise;
}

#[wasm_bindgen(module = "/js/forms/tool.js")]
extern "C" {
    /// A second copy of js/forms/tool.js, to call a definition's `execute` directly.
    #[wasm_bindgen(js_name = formTool)]
    fn form_tool(form: &web_sys::Element) -> JsValue;
}

// The modules tool.js imports: wasm-bindgen copies a file into this test's snippets only when an extern block of the
// test names it (the bridge's own copies are under the bridge's name), so each is named here by one export. The
// signatures differ from the bridge's declarations of the same exports (src/forms.rs): wasm-bindgen names an import
// by its name and signature, and two equal ones would be one symbol defined twice.
#[wasm_bindgen(module = "/js/forms/fields.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = collectFields)]
    fn ships_fields_js(unused: &JsValue);
}
#[wasm_bindgen(module = "/js/forms/schema.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = inputSchema)]
    fn ships_schema_js(unused: &JsValue);
}
#[wasm_bindgen(module = "/js/forms/args.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = argumentProblems)]
    fn ships_args_js(unused: &JsValue);
}
#[wasm_bindgen(module = "/js/forms/fill.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = fill)]
    fn ships_fill_js(unused: &JsValue);
}
#[wasm_bindgen(module = "/js/tools.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = bridgeIn)]
    fn ships_tools_js(unused: &JsValue, unused_too: &JsValue);
}
#[wasm_bindgen(module = "/js/context.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = toolEvent)]
    fn ships_context_js(unused: &JsValue);
}
#[wasm_bindgen(module = "/js/forms/submit.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = submitAsAgent)]
    fn ships_submit_js(unused: &JsValue);
}
#[wasm_bindgen(module = "/js/forms/run.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = runFormTool)]
    fn ships_run_js(unused: &JsValue);
}

/// The page's bridge. The first call adds a form before installing, to see the install-time scan pick it up.
fn mc() -> JsValue {
    let document = web_sys::window().unwrap().document().unwrap();
    if !Reflect::has(&document, &"modelContext".into()).unwrap() {
        add_form(
            r#"<form toolname="preexisting_form" tooldescription="Was in the page before the bridge.">
                 <input name="city" required></form>"#,
        );
    }
    interpane::install(JsValue::UNDEFINED).unwrap()
}

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn get(object: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(object.clone(), |value, key| Reflect::get(&value, &JsValue::from_str(key)).unwrap())
}

/// The value of a settled call's result: executeTool resolves with its JSON text, as native WebMCP does.
fn result_value(result: &JsValue) -> JsValue {
    json(&get(result, "value").as_string().unwrap_or_default())
}

fn text(value: &JsValue) -> String {
    js_sys::JSON::stringify(value).map(String::from).unwrap_or_else(|_| format!("{value:?}"))
}

async fn wait(promise: Promise) -> JsValue {
    JsFuture::from(promise).await.unwrap()
}

async fn schema_of(name: &str) -> String {
    let tool = wait(tool_named(&mc(), name, 3000)).await;
    assert!(!tool.is_null(), "no tool {name}");
    text(&get(&tool, "inputSchema"))
}

async fn call(name: &str, args: &str) -> JsValue {
    wait(call_tool(&mc(), name, &json(args))).await
}

async fn names() -> Vec<String> {
    wait(tool_names(&mc())).await.dyn_into::<js_sys::Array>().unwrap().iter().filter_map(|n| n.as_string()).collect()
}

fn warnings() -> Vec<String> {
    WARNINGS.with(|w| w.iter().filter_map(|w| w.as_string()).collect())
}

/// Adds forms and waits until the bridge has seen them: `probe` is a valid form added in the same mutation.
async fn add_with_probe(html: &str, probe: &str) -> web_sys::Element {
    let container = add_html(&format!(
        r#"{html}<form toolname="{probe}" tooldescription="Shows that the forms before it were seen."></form>"#
    ));
    assert!(!wait(tool_named(&mc(), probe, 3000)).await.is_null());
    container
}

#[wasm_bindgen_test]
async fn a_form_in_the_page_before_install_becomes_a_tool() {
    let tool = wait(tool_named(&mc(), "preexisting_form", 3000)).await;
    assert_eq!(get(&tool, "description").as_string().as_deref(), Some("Was in the page before the bridge."));
    assert_eq!(
        text(&get(&tool, "inputSchema")),
        r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}"#
    );
}

#[wasm_bindgen_test]
async fn each_kind_of_field_has_its_schema() {
    let _ = mc();
    add_form(
        r#"<form toolname="kinds_form" tooldescription="Every kind of field.">
          <input name="text">
          <input name="email" type="email">
          <input name="site" type="url">
          <input name="day" type="date">
          <textarea name="note" minlength="2" maxlength="200"></textarea>
          <input name="code" pattern="[A-Z]{3}">
          <input name="count" type="number" min="1" max="9">
          <input name="price" type="number" step="0.01">
          <input name="volume" type="range">
          <input name="agree" type="checkbox">
          <input name="size" type="radio" value="s"><input name="size" type="radio" value="m">
          <select name="plan"><option value="">Choose</option><option value="starter">Starter</option>
            <option value="pro">Pro</option><option value="old" disabled>Old</option></select>
          <select name="extras" multiple><option>wifi</option><option>parking</option></select>
          <input name="topping" type="checkbox" value="ham"><input name="topping" type="checkbox" value="olives">
          <button>Send</button><input type="submit" name="go" value="Go">
        </form>"#,
    );
    let expected = [
        r#"{"type":"object","properties":{"#,
        r#""text":{"type":"string"},"#,
        r#""email":{"type":"string","format":"email"},"#,
        r#""site":{"type":"string","format":"uri"},"#,
        r#""day":{"type":"string","format":"date"},"#,
        r#""note":{"type":"string","minLength":2,"maxLength":200},"#,
        r#""code":{"type":"string","pattern":"^(?:[A-Z]{3})$"},"#,
        r#""count":{"type":"integer","minimum":1,"maximum":9},"#,
        r#""price":{"type":"number"},"#,
        r#""volume":{"type":"integer","minimum":0,"maximum":100},"#,
        r#""agree":{"type":"boolean"},"#,
        r#""size":{"type":"string","enum":["s","m"]},"#,
        r#""plan":{"type":"string","enum":["starter","pro"]},"#,
        r#""extras":{"type":"array","items":{"type":"string","enum":["wifi","parking"]},"uniqueItems":true},"#,
        r#""topping":{"type":"array","items":{"type":"string","enum":["ham","olives"]},"uniqueItems":true}"#,
        r#"},"additionalProperties":false}"#,
    ]
    .concat();
    assert_eq!(schema_of("kinds_form").await, expected);
}

#[wasm_bindgen_test]
async fn descriptions_come_from_toolparamdescription_then_the_label_then_aria_description() {
    let _ = mc();
    add_form(
        r#"<form toolname="described_form" tooldescription="Descriptions.">
          <label for="described-1">Label one</label>
          <input id="described-1" name="all_three" toolparamdescription="Param one" aria-description="Aria one">
          <label>Label  two <input name="label_and_aria" aria-description="Aria two"></label>
          <input name="aria_only" aria-description="Aria three">
          <input name="nothing">
          <label>Plan <select name="plan_in_label"><option value="a">Alpha</option></select></label>
          <fieldset toolparamdescription="Delivery speed"><legend>Speed</legend>
            <label><input type="radio" name="speed" value="slow"> Slow</label>
            <label><input type="radio" name="speed" value="fast"> Fast</label></fieldset>
          <fieldset><legend> Pick   a colour </legend>
            <input type="radio" name="colour" value="red"><input type="radio" name="colour" value="blue"></fieldset>
          <label><input type="checkbox" name="gift"> Wrap it as a gift</label>
          <fieldset toolparamdescription="Not this one"><legend>Nor this one</legend>
            <input type="radio" name="tip" value="5"><input type="radio" name="tip" value="10"
              toolparamdescription="Tip in percent"></fieldset>
        </form>"#,
    );
    let expected = [
        r#"{"type":"object","properties":{"#,
        r#""all_three":{"type":"string","description":"Param one"},"#,
        r#""label_and_aria":{"type":"string","description":"Label two"},"#,
        r#""aria_only":{"type":"string","description":"Aria three"},"#,
        r#""nothing":{"type":"string"},"#,
        r#""plan_in_label":{"type":"string","enum":["a"],"description":"Plan"},"#,
        r#""speed":{"type":"string","enum":["slow","fast"],"description":"Delivery speed"},"#,
        r#""colour":{"type":"string","enum":["red","blue"],"description":"Pick a colour"},"#,
        r#""gift":{"type":"boolean","description":"Wrap it as a gift"},"#,
        r#""tip":{"type":"string","enum":["5","10"],"description":"Tip in percent"}"#,
        r#"},"additionalProperties":false}"#,
    ]
    .concat();
    assert_eq!(schema_of("described_form").await, expected);
}

#[wasm_bindgen_test]
async fn password_hidden_file_disabled_and_read_only_fields_are_left_out() {
    let _ = mc();
    add_form(
        r#"<form toolname="excluding_form" tooldescription="Only email is for agents.">
          <input name="email" type="email">
          <input name="password" type="password">
          <input name="token" type="hidden" value="t">
          <input name="avatar" type="file">
          <input name="locked" disabled>
          <input name="fixed" readonly value="f">
          <fieldset disabled><input name="inside_disabled"></fieldset>
          <input name="otp" autocomplete="one-time-code">
          <input name="new_secret" autocomplete="new-password">
          <select name="empty_list"><option value="">None yet</option></select>
          <input placeholder="no name">
          <button name="send">Send</button>
        </form>"#,
    );
    assert_eq!(
        schema_of("excluding_form").await,
        r#"{"type":"object","properties":{"email":{"type":"string","format":"email"}},"additionalProperties":false}"#
    );
}

#[wasm_bindgen_test]
async fn required_fields_are_required() {
    let _ = mc();
    add_form(
        r#"<form toolname="requiring_form" tooldescription="Some fields are required.">
          <input name="name" required>
          <input name="nickname">
          <input type="radio" name="speed" value="slow" required><input type="radio" name="speed" value="fast">
          <select name="plan" required><option value="">Choose</option><option value="pro">Pro</option></select>
          <input type="checkbox" name="terms" required>
          <input type="password" name="password" required>
        </form>"#,
    );
    let schema = json(&schema_of("requiring_form").await);
    assert_eq!(text(&get(&schema, "required")), r#"["name","speed","plan","terms"]"#);
}

#[wasm_bindgen_test]
async fn filling_fires_input_and_change_once_per_field_that_changes() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="filling_form" tooldescription="Filled as a visitor would.">
          <input name="name"><textarea name="note"></textarea><input name="count" type="number">
          <input name="same" value="kept">
          <select name="plan"><option value="starter">Starter</option><option value="pro">Pro</option></select>
          <input type="checkbox" name="agree">
          <input type="radio" name="size" value="s" checked><input type="radio" name="size" value="m">
        </form>"#,
    );
    let counts = count_events(&form);
    let args = r#"{"name":"Ada","note":"Two\nlines","count":3,"same":"kept","plan":"pro","agree":true,"size":"m"}"#;
    let result = call("filling_form", args).await;
    assert_eq!(get(&result, "ok").as_bool(), Some(true), "{}", text(&result));
    assert_eq!(
        text(&form_values(&form)),
        r#"{"name":"Ada","note":"Two\nlines","count":"3","same":"kept","plan":"pro","agree=on":true,"size=s":false,"size=m":true}"#
    );
    let once = r#"{"input":1,"change":1}"#;
    let never = r#"{"input":0,"change":0}"#;
    for (field, expected) in [
        ("name", once),
        ("note", once),
        ("count", once),
        ("same", never),
        ("plan", once),
        ("agree=on", once),
        ("size=s", never),
        ("size=m", once),
    ] {
        assert_eq!(text(&get(&counts, field)), expected, "{field}");
    }
    // Every event bubbled to the form: six fields changed.
    assert_eq!(text(&get(&counts, "form")), r#"{"input":6,"change":6}"#);
    // The same values again change nothing, so no event fires.
    call("filling_form", args).await;
    assert_eq!(text(&get(&counts, "form")), r#"{"input":6,"change":6}"#);
}

#[wasm_bindgen_test]
async fn lists_fill_a_select_multiple_and_a_group_of_checkboxes() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="lists_form" tooldescription="Lists.">
          <select name="extras" multiple><option>wifi</option><option selected>parking</option>
            <option>breakfast</option></select>
          <input type="checkbox" name="topping" value="ham" checked><input type="checkbox" name="topping" value="olives">
          <input type="checkbox" name="topping" value="basil">
        </form>"#,
    );
    let counts = count_events(&form);
    let result = call("lists_form", r#"{"extras":["wifi","breakfast"],"topping":["olives","basil"]}"#).await;
    assert_eq!(get(&result, "ok").as_bool(), Some(true), "{}", text(&result));
    assert_eq!(
        text(&form_values(&form)),
        r#"{"extras":["wifi","breakfast"],"topping=ham":false,"topping=olives":true,"topping=basil":true}"#
    );
    assert_eq!(text(&get(&counts, "extras")), r#"{"input":1,"change":1}"#);
    for field in ["topping=ham", "topping=olives", "topping=basil"] {
        assert_eq!(text(&get(&counts, field)), r#"{"input":1,"change":1}"#, "{field}");
    }
}

#[wasm_bindgen_test]
async fn an_autosubmit_form_is_submitted_with_its_submit_button() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="autosubmit_form" tooldescription="Submits." toolautosubmit>
          <input name="email" type="email" required><button name="send">Send</button></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    let result = call("autosubmit_form", r#"{"email":"ada@example.com"}"#).await;
    assert_eq!(
        get(&result, "value").as_string().unwrap_or_default(),
        concat!(
            r#"{"content":[{"type":"text","text":"Filled email. Submitted the form. The page's submit handler "#,
            r#"took the submission over and gave no response."}],"filled":["email"],"submitted":true}"#
        )
    );
    assert_eq!(text(&submits), r#"{"count":1,"agentInvoked":[true],"submitters":["send"],"errors":[]}"#);
}

#[wasm_bindgen_test]
async fn an_autosubmit_form_that_navigates_a_frame_is_submitted() {
    let _ = mc();
    let container = add_html(
        r#"<iframe name="forms_target" hidden></iframe>
           <form toolname="navigating_form" tooldescription="Navigates a frame." toolautosubmit
                 action="about:blank" target="forms_target"><input name="q"></form>"#,
    );
    let form = container.query_selector("form").unwrap().unwrap();
    let submits = watch_submits(&form, "none", &JsValue::UNDEFINED);
    let result = call("navigating_form", r#"{"q":"pizza"}"#).await;
    assert_eq!(text(&get(&result_value(&result), "submitted")), "true");
    assert_eq!(
        get(&result_value(&result), "content.0.text").as_string().as_deref(),
        Some("Filled q. Submitted the form.")
    );
    assert_eq!(get(&submits, "count").as_f64(), Some(1.0));
    container.remove();
}

#[wasm_bindgen_test]
async fn a_form_without_toolautosubmit_is_filled_but_not_submitted() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="review_form" tooldescription="The visitor submits.">
          <input name="email" type="email"><input name="password" type="password" required>
          <button>Send</button></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    let result = call("review_form", r#"{"email":"ada@example.com"}"#).await;
    let message = validation_message(&form, "password");
    assert_eq!(
        get(&result, "value").as_string().unwrap_or_default(),
        format!(
            concat!(
                r#"{{"content":[{{"type":"text","text":"Filled email. Not submitted: the visitor reviews the form "#,
                r#"and submits it. The visitor must also complete password (a password field, which only the "#,
                r#"visitor fills: {})."}}],"filled":["email"],"submitted":false}}"#
            ),
            message
        )
    );
    assert_eq!(get(&submits, "count").as_f64(), Some(0.0));
    assert_eq!(text(&form_values(&form)), r#"{"email":"ada@example.com","password":""}"#);
}

#[wasm_bindgen_test]
async fn a_required_password_blocks_the_submit_and_the_error_names_it() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="login_form" tooldescription="Logs in." toolautosubmit>
          <input name="email" type="email" required><input name="password" type="password" required>
          <button>Log in</button></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    let result = call("login_form", r#"{"email":"ada@example.com"}"#).await;
    assert_eq!(get(&result, "ok").as_bool(), Some(false));
    assert_eq!(get(&result, "kind").as_string().as_deref(), Some("tool_error"));
    assert_eq!(
        get(&result, "message").as_string().unwrap(),
        format!(
            "login_form: the form was not submitted: the visitor must complete password (a password field, which only \
             the visitor fills: {}). The values given (email) were left in the form.",
            validation_message(&form, "password")
        )
    );
    assert_eq!(get(&submits, "count").as_f64(), Some(0.0));
    assert_eq!(text(&form_values(&form)), r#"{"email":"ada@example.com","password":""}"#);
}

#[wasm_bindgen_test]
async fn a_value_the_browser_refuses_blocks_the_submit_and_the_error_names_the_field() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="signup_form" tooldescription="Signs up." toolautosubmit>
          <input name="email" type="email" required><input name="name"><button>Sign up</button></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    let result = call("signup_form", r#"{"email":"not-an-email","name":"Ada"}"#).await;
    assert_eq!(
        get(&result, "message").as_string().unwrap(),
        format!(
            "signup_form: the form was not submitted: the browser refused email ({}). The values given (email, name) \
             were left in the form.",
            validation_message(&form, "email")
        )
    );
    assert_eq!(get(&submits, "count").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn a_value_the_browser_rewrites_is_reported() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="booking_form" tooldescription="Books." toolautosubmit>
          <input name="day" type="date"><input name="guests" type="range" min="0" max="100" step="10">
          <button>Book</button></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    let result = call("booking_form", r#"{"day":"31/12/2030","guests":15}"#).await;
    assert_eq!(
        get(&result, "message").as_string().unwrap(),
        "booking_form: the form was not submitted: the browser refused day (the browser did not accept \
         \"31/12/2030\" for a date field); guests (the browser turned \"15\" into \"20\"). The values given (day, \
         guests) were left in the form."
    );
    assert_eq!(get(&submits, "count").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn a_form_whose_submit_button_stays_disabled_is_not_submitted() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="disabled_button_form" tooldescription="Waits for the page." toolautosubmit>
          <input name="q"><button disabled>Search</button></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    let result = call("disabled_button_form", r#"{"q":"lamps"}"#).await;
    assert_eq!(
        get(&result, "message").as_string().as_deref(),
        Some(
            "disabled_button_form: the form was not submitted: the page keeps its submit button disabled. The values \
             given (q) were left in the form."
        )
    );
    assert_eq!(get(&submits, "count").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn the_value_given_to_respond_with_is_in_the_result() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="order_form" tooldescription="Orders." toolautosubmit>
          <select name="plan"><option value="starter">Starter</option><option value="pro">Pro</option></select>
        </form>"#,
    );
    watch_submits(&form, "respond", &json(r#"{"order":42}"#));
    let result = call("order_form", r#"{"plan":"pro"}"#).await;
    // The response is the call's result, as native WebMCP answers: executeTool resolves with its JSON text.
    assert_eq!(get(&result, "value").as_string().unwrap_or_default(), r#"{"order":42}"#);
}

#[wasm_bindgen_test]
async fn a_string_response_is_the_result_as_it_is() {
    let _ = mc();
    let form =
        add_form(r#"<form toolname="echo_form" tooldescription="Echoes." toolautosubmit><input name="word"></form>"#);
    watch_submits(&form, "respond", &JsValue::from_str("ok"));
    let result = call("echo_form", r#"{"word":"hi"}"#).await;
    assert_eq!(get(&result, "value").as_string().as_deref(), Some("ok"), "{}", text(&result));
}

#[wasm_bindgen_test]
async fn a_rejected_response_fails_the_call_with_its_message() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="failing_order_form" tooldescription="Orders, and fails." toolautosubmit>
          <input name="item"></form>"#,
    );
    watch_submits(&form, "reject", &JsValue::from_str("out of stock"));
    let result = call("failing_order_form", r#"{"item":"lamp"}"#).await;
    assert_eq!(get(&result, "message").as_string().as_deref(), Some("out of stock"));
    assert_eq!(get(&result, "kind").as_string().as_deref(), Some("tool_error"));
}

#[wasm_bindgen_test]
async fn respond_with_needs_prevent_default_and_the_submit_event() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="misused_form" tooldescription="Misuses respondWith." toolautosubmit>
          <input name="item"></form>"#,
    );
    let submits = watch_submits(&form, "misuse", &JsValue::from_str("ignored"));
    let result = call("misused_form", r#"{"item":"lamp"}"#).await;
    assert_eq!(get(&result_value(&result), "submitted").as_bool(), Some(true));
    assert!(get(&result_value(&result), "response").is_undefined());
    wait(next_task(20)).await;
    assert_eq!(text(&get(&submits, "errors")), r#"["InvalidStateError","InvalidStateError"]"#);
}

#[wasm_bindgen_test]
async fn arguments_for_missing_or_excluded_fields_are_refused_and_nothing_is_filled() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="guarded_form" tooldescription="Guards its password." toolautosubmit>
          <input name="email"><input name="password" type="password"><input name="off" disabled></form>"#,
    );
    let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
    // Through the bridge, the schema check refuses the call before the form is touched.
    let result = call("guarded_form", r#"{"email":"ada@example.com","password":"hunter2"}"#).await;
    assert_eq!(get(&result, "kind").as_string().as_deref(), Some("invalid_args"));
    assert_eq!(
        get(&result, "message").as_string().as_deref(),
        Some(
            r#"{"message":"invalid arguments for guarded_form: unexpected property \"password\" (allowed: email)","path":"/password","reason":"additionalProperties","schemaPath":"/additionalProperties"}"#
        )
    );
    // Called directly, the definition's execute refuses them too, naming why.
    let definition = form_tool(&form);
    let execute = get(&definition, "execute").dyn_into::<js_sys::Function>().unwrap();
    let args = json(r#"{"email":"ada@example.com","password":"hunter2","off":"x","nope":1}"#);
    let outcome = execute.call2(&definition, &args, &js_sys::Object::new()).unwrap();
    let error = JsFuture::from(outcome.dyn_into::<Promise>().unwrap()).await.unwrap_err();
    assert_eq!(
        get(&error, "message").as_string().as_deref(),
        Some(concat!(
            "guarded_form: password is a password field, which only the visitor fills: it cannot be filled through ",
            "the tool; off is disabled: it cannot be filled through the tool; the form has no field \"nope\" ",
            "(fields: email)"
        ))
    );
    assert_eq!(get(&error, "name").as_string().as_deref(), Some("TypeError"));
    assert_eq!(text(&form_values(&form)), r#"{"email":"","password":"","off":""}"#);
    assert_eq!(get(&submits, "count").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn forms_that_come_change_and_go_change_the_catalog_and_fire_toolchange() {
    let mc = mc();
    let changes = tool_changes(&mc);
    let next = || get(&changes, "next").dyn_into::<js_sys::Function>().unwrap().call0(&changes).unwrap();
    let added = next();
    let form = add_form(r#"<form toolname="coming_form" tooldescription="Comes and goes."><input name="a"></form>"#);
    assert_eq!(wait(added.into()).await, true);
    assert!(names().await.contains(&"coming_form".to_owned()));

    // Renamed: the old name goes and the new one comes, in one change.
    let before = get(&changes, "count").as_f64().unwrap();
    let renamed = next();
    form.set_attribute("toolname", "renamed_form").unwrap();
    assert_eq!(wait(renamed.into()).await, true);
    let now = names().await;
    assert!(now.contains(&"renamed_form".to_owned()) && !now.contains(&"coming_form".to_owned()), "{now:?}");
    wait(next_task(20)).await;
    assert_eq!(get(&changes, "count").as_f64(), Some(before + 1.0));

    // A new field changes the schema.
    let changed = next();
    form.insert_adjacent_html("beforeend", r#"<input name="b" required>"#).unwrap();
    assert_eq!(wait(changed.into()).await, true);
    assert_eq!(
        schema_of("renamed_form").await,
        concat!(
            r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"],"#,
            r#""additionalProperties":false}"#
        )
    );

    // A changed description.
    let described = next();
    form.set_attribute("tooldescription", "Now described otherwise.").unwrap();
    assert_eq!(wait(described.into()).await, true);
    let tool = wait(tool_named(&mc, "renamed_form", 3000)).await;
    assert_eq!(get(&tool, "description").as_string().as_deref(), Some("Now described otherwise."));

    // Removed.
    let removed = next();
    form.remove();
    assert_eq!(wait(removed.into()).await, true);
    assert!(!names().await.contains(&"renamed_form".to_owned()));

    // A form that loses its toolname stops being a tool.
    let second = add_form(r#"<form toolname="unnamed_later" tooldescription="Loses its name."></form>"#);
    assert!(!wait(tool_named(&mc, "unnamed_later", 3000)).await.is_null());
    let unnamed = next();
    second.remove_attribute("toolname").unwrap();
    assert_eq!(wait(unnamed.into()).await, true);
    assert!(!names().await.contains(&"unnamed_later".to_owned()));
}

#[wasm_bindgen_test]
async fn a_form_whose_toolname_is_not_a_tool_name_is_skipped_with_a_warning() {
    let _ = mc();
    add_with_probe(
        r#"<form toolname="bad name" tooldescription="Spaces are not allowed."><input name="a"></form>
           <form toolname="undescribed_form"><input name="a"></form>"#,
        "probe_for_bad_names",
    )
    .await;
    let names = names().await;
    assert!(!names.iter().any(|n| n == "bad name" || n == "undescribed_form"), "{names:?}");
    let warnings = warnings();
    let expected = [
        "interpane: a form's toolname \"bad name\" is not a valid tool name (tool name holds ' ' at position 3: \
         only letters, digits and _ . - are allowed); the form is not a tool",
        "interpane: the form \"undescribed_form\" has no tooldescription; it becomes a tool once it has one",
    ];
    for warning in expected {
        assert!(warnings.iter().any(|w| w == warning), "{warning:?} not in {warnings:?}");
    }
}

#[wasm_bindgen_test]
async fn a_form_named_like_an_imperative_tool_is_skipped_with_a_warning() {
    let mc = mc();
    let register = get(&mc, "registerTool").dyn_into::<js_sys::Function>().unwrap();
    let tool = json(r#"{"name":"clash_tool","description":"The imperative one."}"#);
    Reflect::set(&tool, &"execute".into(), &js_sys::Function::new_no_args("return 'imperative';")).unwrap();
    register.call1(&mc, &tool).unwrap();
    add_with_probe(
        r#"<form toolname="clash_tool" tooldescription="The form." toolautosubmit></form>"#,
        "probe_for_clash",
    )
    .await;
    let warning = "interpane: the form \"clash_tool\" is not a tool: a tool of that name is already registered \
                   in this page";
    assert!(warnings().iter().any(|w| w == warning), "{:?}", warnings());
    let result = call("clash_tool", "{}").await;
    assert_eq!(get(&result, "value").as_string().as_deref(), Some("imperative"));
}

#[wasm_bindgen_test]
async fn a_second_form_of_a_name_becomes_the_tool_when_the_first_goes() {
    let mc = mc();
    let container = add_with_probe(
        r#"<form id="twin-1" toolname="twin_form" tooldescription="First twin."></form>
           <form id="twin-2" toolname="twin_form" tooldescription="Second twin."></form>"#,
        "probe_for_twins",
    )
    .await;
    let tool = wait(tool_named(&mc, "twin_form", 3000)).await;
    assert_eq!(get(&tool, "description").as_string().as_deref(), Some("First twin."));
    let changes = tool_changes(&mc);
    let changed = get(&changes, "next").dyn_into::<js_sys::Function>().unwrap().call0(&changes).unwrap();
    container.query_selector("#twin-1").unwrap().unwrap().remove();
    assert_eq!(wait(changed.into()).await, true);
    let tool = wait(tool_named(&mc, "twin_form", 3000)).await;
    assert_eq!(get(&tool, "description").as_string().as_deref(), Some("Second twin."));
}

#[wasm_bindgen_test]
async fn a_frame_lists_and_calls_a_form_tool_through_window_messages() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="framed_order_form" tooldescription="Orders from a frame." toolautosubmit>
          <label>Quantity <input name="quantity" type="number" min="1" required></label></form>"#,
    );
    watch_submits(&form, "respond", &json(r#"{"order":7}"#));
    assert!(!wait(tool_named(&mc(), "framed_order_form", 3000)).await.is_null());
    let frame = wait(consumer_frame()).await;
    let listed =
        wait(request_from_frame(&frame, &json(r#"{"type":"WEBMCP_GET_TOOLS_REQUEST","requestId":"form-list-1"}"#)))
            .await;
    let listed = json(&listed.as_string().unwrap());
    let tool = get(&listed, "tools")
        .dyn_into::<js_sys::Array>()
        .unwrap()
        .iter()
        .find(|t| get(t, "name").as_string().as_deref() == Some("framed_order_form"))
        .expect("the form tool is listed");
    assert_eq!(
        text(&get(&tool, "inputSchema")),
        concat!(
            r#"{"type":"object","properties":{"quantity":{"type":"integer","minimum":1,"description":"Quantity"}},"#,
            r#""required":["quantity"],"additionalProperties":false}"#
        )
    );
    let executed = wait(request_from_frame(
        &frame,
        &json(
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"form-call-1","name":"framed_order_form",
                "inputObject":{"quantity":2}}"#,
        ),
    ))
    .await;
    let executed = json(&executed.as_string().unwrap());
    assert_eq!(get(&executed, "success").as_bool(), Some(true), "{}", text(&executed));
    assert_eq!(text(&get(&executed, "result")), r#"{"order":7}"#);
    assert_eq!(text(&form_values(&form)), r#"{"quantity":"2"}"#);
    frame.dyn_into::<web_sys::Element>().unwrap().remove();
}

/// As the WebMCP web-platform-tests ask (declarative/form_removal_submit_crash): a submit handler that responds and
/// removes the form makes the call reject with an `UnknownError`, not resolve with the response.
#[wasm_bindgen_test]
async fn a_form_removed_during_its_call_rejects_with_unknown_error() {
    let _ = mc();
    let form = add_form(
        r#"<form toolname="vanishing_form" tooldescription="Removed by its own submit handler." toolautosubmit>
          <input name="item"></form>"#,
    );
    let submits = watch_submits(&form, "respond-and-remove", &JsValue::from_str("done"));
    let result = call("vanishing_form", r#"{"item":"lamp"}"#).await;
    assert_eq!(get(&submits, "count").as_f64(), Some(1.0));
    assert_eq!(get(&result, "name").as_string().as_deref(), Some("UnknownError"), "{}", text(&result));
    assert_eq!(get(&result, "isDomException").as_bool(), Some(true), "{}", text(&result));
}

/// As the WebMCP web-platform-tests ask (declarative/unregister-during-executeTool): a form that leaves the page
/// after its submit handler responded is no longer a tool, but its response still answers the call, whether the
/// form was removed or lost its `tooldescription`.
#[wasm_bindgen_test]
async fn a_form_that_stops_being_a_tool_after_responding_still_answers_its_call() {
    let mc = mc();
    for (name, unregister) in [("removed_after_response", "remove"), ("undescribed_after_response", "attribute")] {
        let form = add_form(&format!(
            r#"<form toolname="{name}" tooldescription="Stops being a tool mid-call." toolautosubmit></form>"#
        ));
        let pending = respond_later(&form);
        let result = call_tool(&mc, name, &json("{}"));
        wait(get(&pending, "submitted").into()).await;
        let changes = tool_changes(&mc);
        let changed = get(&changes, "next").dyn_into::<js_sys::Function>().unwrap().call0(&changes).unwrap();
        match unregister {
            "remove" => form.remove(),
            _ => form.remove_attribute("tooldescription").unwrap(),
        }
        assert_eq!(wait(changed.into()).await, true, "{name}");
        assert!(!names().await.contains(&name.to_owned()), "{name}");
        let respond = get(&pending, "respond").dyn_into::<js_sys::Function>().unwrap();
        respond.call1(&JsValue::UNDEFINED, &JsValue::from_str("answered")).unwrap();
        let result = wait(result).await;
        assert_eq!(get(&result, "value").as_string().as_deref(), Some("answered"), "{name}: {}", text(&result));
        form.remove();
    }
}

/// `toolactivated` for a form's call fires at the page's modelContext and at its window, once each, after
/// the fields hold the values given.
#[wasm_bindgen_test]
async fn tool_activated_fires_at_the_window_and_the_model_context_after_the_fields_are_filled() {
    let mc = mc();
    let form = add_form(
        r#"<form toolname="activated_form" tooldescription="Announces its call." toolautosubmit>
          <input name="query" value="initial"></form>"#,
    );
    watch_submits(&form, "respond", &JsValue::from_str("done"));
    let window = web_sys::window().unwrap();
    let at_window = values_at_tool_activated(&window, "activated_form", &form, "query");
    let at_model_context = values_at_tool_activated(&mc, "activated_form", &form, "query");
    let result = call("activated_form", r#"{"query":"testing"}"#).await;
    assert_eq!(get(&result, "ok").as_bool(), Some(true), "{}", text(&result));
    assert_eq!(text(&at_window), r#"["testing"]"#);
    assert_eq!(text(&at_model_context), r#"["testing"]"#);
    form.remove();
}

/// A form in a frame without `src` (an about:blank document of this page, which only the page's script fills) is
/// a tool of the page, callable (its submit handler, of the frame's window, responds); it stops being one when the
/// frame is removed, and a change of the form after that is not a tool.
#[wasm_bindgen_test]
async fn a_form_in_a_blank_frame_is_a_tool_of_the_page_until_the_frame_goes() {
    let _ = mc();
    let made = blank_frame_with(
        r#"<form toolname="blank_frame_form" tooldescription="In a frame without src." toolautosubmit>
             <input name="word"></form>"#,
    );
    let (frame, form) = (get(&made, "frame").unchecked_into::<web_sys::Element>(), get(&made, "form").unchecked_into());
    watch_submits(&form, "respond", &JsValue::from_str("from the frame"));
    let result = call("blank_frame_form", r#"{"word":"hello"}"#).await;
    assert_eq!(get(&result, "value").as_string().as_deref(), Some("from the frame"), "{}", text(&result));
    assert_eq!(text(&form_values(&form)), r#"{"word":"hello"}"#);
    frame.remove();
    form.set_attribute("toolname", "blank_frame_form_renamed").unwrap();
    let listed = names().await;
    assert!(!listed.iter().any(|name| name.starts_with("blank_frame_form")), "{listed:?}");
}

/// A frame without `src` that then loads a page of its own (here a `srcdoc`) takes its forms with it: the blank
/// document's form stops being a tool of the page once the frame loaded, though nothing changed in the page's own
/// document, and the loaded page's form is not the page's tool either.
#[wasm_bindgen_test]
async fn a_blank_frame_that_loads_a_page_is_no_longer_the_pages() {
    let _ = mc();
    let made = blank_frame_with(
        r#"<form toolname="until_the_frame_loads" tooldescription="In a blank frame, for now."></form>"#,
    );
    let frame = get(&made, "frame").unchecked_into::<web_sys::Element>();
    assert!(names().await.contains(&"until_the_frame_loads".to_owned()));
    wait(load_srcdoc(&frame, r#"<form toolname="in_the_loaded_page" tooldescription="The frame's own page."></form>"#))
        .await;
    let listed = names().await;
    assert!(!listed.contains(&"until_the_frame_loads".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"in_the_loaded_page".to_owned()), "{listed:?}");
    frame.remove();
}

/// Forms of documents without a window (createHTMLDocument, DOMParser) are not tools; moved or copied into the page
/// (adoptNode, importNode, cloneNode), such a form is a tool that works.
#[wasm_bindgen_test]
async fn a_form_from_a_document_without_a_window_is_a_tool_once_in_the_page() {
    let mc = mc();
    let _documents = forms_in_frameless_documents(
        r#"<form toolname="frameless_form" tooldescription="In no page."><input name="q"></form>"#,
    );
    // The probe is listed once the bridge has seen the page's mutations since the documents were made.
    add_with_probe("", "probe_for_frameless").await;
    assert!(!names().await.contains(&"frameless_form".to_owned()));
    for operation in ["adoptNode", "importNode", "cloneNode"] {
        let name = format!("moved_by_{operation}");
        let form = form_from_frameless_document(
            &format!(r#"<form toolname="{name}" tooldescription="Moved in." toolautosubmit><input name="q"></form>"#),
            operation,
        );
        watch_submits(&form, "respond", &JsValue::from_str(operation));
        let result = wait(call_tool(&mc, &name, &json(r#"{"q":"x"}"#))).await;
        assert_eq!(get(&result, "value").as_string().as_deref(), Some(operation), "{}", text(&result));
        form.remove();
    }
}

/// A listing made in the same task as the page added a form lists the form's tool (the watcher's microtask has not
/// run yet then), as native's does.
#[wasm_bindgen_test]
async fn a_listing_in_the_task_that_added_a_form_lists_its_tool() {
    let mc = mc();
    let listed = wait(names_listed_right_after_adding(
        &mc,
        r#"<form toolname="listed_at_once" tooldescription="Listed in the task that added it."></form>"#,
    ))
    .await;
    assert_eq!(get(&listed, "frames").as_f64(), Some(0.0), "a frame of another test is still in the page");
    let names = get(&listed, "names").dyn_into::<js_sys::Array>().unwrap();
    assert!(names.includes(&JsValue::from_str("listed_at_once"), 0), "{}", text(&names));
}

/// A form that stops being its tool after it was filled and before it is submitted (here its own `input` handler
/// removes it, or takes its `tooldescription` off) cancels the call, as native cancels a form call whose tool goes
/// before the submit: the call rejects with a `DOMException` `UnknownError`, `toolcancel` fires at the modelContext and
/// at the window, and nothing is submitted.
#[wasm_bindgen_test]
async fn a_form_that_stops_being_a_tool_before_its_submit_cancels_the_call() {
    let mc = mc();
    let window: JsValue = web_sys::window().unwrap().into();
    for (name, how) in [("removed_before_submit", "remove"), ("undescribed_before_submit", "attribute")] {
        let form = add_form(&format!(
            r#"<form toolname="{name}" tooldescription="Stops being a tool while filled." toolautosubmit>
                 <input name="q"></form>"#
        ));
        assert!(!wait(tool_named(&mc, name, 3000)).await.is_null(), "{name}");
        stop_being_tool_on_input(&form, how);
        let submits = watch_submits(&form, "prevent", &JsValue::UNDEFINED);
        let (at_window, at_model_context) = (count_tool_events(&window, name), count_tool_events(&mc, name));
        let result = call(name, r#"{"q":"x"}"#).await;
        assert_eq!(get(&result, "name").as_string().as_deref(), Some("UnknownError"), "{name}: {}", text(&result));
        assert_eq!(get(&result, "isDomException").as_bool(), Some(true), "{name}");
        assert_eq!(get(&submits, "count").as_f64(), Some(0.0), "{name}");
        wait(next_task(0)).await;
        assert_eq!(text(&at_window), r#"{"toolactivated":1,"toolcancel":1}"#, "{name}");
        assert_eq!(text(&at_model_context), r#"{"toolactivated":1,"toolcancel":1}"#, "{name}");
        form.remove();
    }
}
