#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]
use interpane::listener::MessageListener;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20).unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

#[wasm_bindgen_test]
async fn dropped_listener_stops_receiving() {
    let window = web_sys::window().unwrap();
    let seen = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = seen.clone();
    let guard = MessageListener::new(&window, move |data| sink.borrow_mut().push(data.as_string().unwrap_or_default()));
    window.post_message(&JsValue::from_str("first"), &window.origin()).unwrap();
    next_task().await;
    drop(guard);
    window.post_message(&JsValue::from_str("second"), &window.origin()).unwrap();
    next_task().await;
    assert_eq!(*seen.borrow(), vec!["first".to_string()]);
}
