//! A browser session with the helpers the suites need: open, frames, waiting, scripts.

use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::Value;

use crate::error::{Doing, E2eError, E2eResult};

/// Default deadline of [`Session::wait_for`].
pub const DEFAULT_WAIT: Duration = Duration::from_secs(10);

/// How often [`Session::wait_for`] re-evaluates its condition.
const POLL_EVERY: Duration = Duration::from_millis(20);

/// Deepest frame nesting the harness walks.
const MAX_FRAME_DEPTH: usize = 8;

/// One Chromium session (one window), driven through WebDriver.
#[derive(Clone, Debug)]
pub struct Session {
    client: Client,
}

impl Session {
    /// Wraps a connected client.
    pub fn new(client: Client) -> Self {
        Session { client }
    }

    /// The underlying WebDriver client, for anything the helpers do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Navigates the window to `url` and waits until its document (not its frames' necessarily) is complete.
    pub async fn open(&self, url: &str) -> E2eResult<()> {
        self.to_top().await?;
        self.client.goto(url).await.doing(format!("opening {url}"))?;
        self.wait_for("document.readyState === 'complete'", DEFAULT_WAIT).await?;
        Ok(())
    }

    /// Waits until a demo page's script has finished loading (`window.__demo.state` is no longer `loading`);
    /// returns that state (`ready`, `no-bridge`, `done` or `error`).
    pub async fn wait_page_settled(&self) -> E2eResult<String> {
        let state = self
            .wait_for("window.__demo && window.__demo.state !== 'loading' && window.__demo.state", DEFAULT_WAIT)
            .await?;
        Ok(state.as_str().unwrap_or_default().to_owned())
    }

    /// Runs `script` (a function body; `return` gives its value) in the current frame.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> E2eResult<Value> {
        self.client.execute(script, args).await.doing(format!("running `{}`", preview(script)))
    }

    /// Runs `body` as the body of an async function in the current frame and waits for its promise.
    /// The arguments are `args[0..]` in `arguments`. A rejection becomes [`E2eError::Script`].
    pub async fn execute_async(&self, body: &str, args: Vec<Value>) -> E2eResult<Value> {
        let script = format!(
            "const done = arguments[arguments.length - 1];\n\
             const args = Array.prototype.slice.call(arguments, 0, -1);\n\
             (async function () {{ {body}\n }}).apply(null, args).then(\n\
               (value) => done({{ ok: value === undefined ? null : value }}),\n\
               (error) => done({{ error: String((error && error.stack) || error) }}));"
        );
        let outcome =
            self.client.execute_async(&script, args).await.doing(format!("running async `{}`", preview(body)))?;
        match outcome {
            Value::Object(mut fields) => match (fields.remove("ok"), fields.remove("error")) {
                (Some(value), _) => Ok(value),
                (None, Some(error)) => Err(E2eError::Script {
                    doing: preview(body),
                    message: error.as_str().unwrap_or_default().to_owned(),
                }),
                (None, None) => Err(E2eError::Script { doing: preview(body), message: "no outcome".into() }),
            },
            other => Err(E2eError::Script { doing: preview(body), message: format!("unexpected outcome {other}") }),
        }
    }

    /// Evaluates the JavaScript expression `condition` in the current frame until it is truthy, or fails
    /// after `timeout`. Returns the truthy value. Exceptions count as "not yet" (the page may be navigating).
    pub async fn wait_for(&self, condition: &str, timeout: Duration) -> E2eResult<Value> {
        let script = format!("try {{ return ({condition}); }} catch (e) {{ return null; }}");
        let started = Instant::now();
        loop {
            let last = match self.client.execute(&script, vec![]).await {
                Ok(value) if is_truthy(&value) => return Ok(value),
                Ok(value) => value,
                // A frame or page that is being replaced cannot run scripts for a moment: poll again.
                Err(error) => Value::String(error.to_string()),
            };
            if started.elapsed() >= timeout {
                return Err(E2eError::Timeout { what: condition.to_owned(), waited: timeout, last: last.to_string() });
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
    }

    /// Switches into the iframe matched by `css` in the current frame, waiting for it when the document does not
    /// have it yet (a window just opened may still show `about:blank`: Firefox switches to it before its page loads).
    pub async fn enter_frame(&self, css: &str) -> E2eResult<()> {
        let frame = match self.client.find(Locator::Css(css)).await {
            Ok(frame) => frame,
            Err(_) => {
                self.wait_for(&format!("document.querySelector({})", js_string(css)), DEFAULT_WAIT).await?;
                self.client.find(Locator::Css(css)).await.doing(format!("finding frame {css}"))?
            }
        };
        frame.enter_frame().await.doing(format!("entering frame {css}"))
    }

    /// Switches into the iframe matched by `css` and waits until it shows a complete document of `origin`
    /// (the frame may still be about:blank or loading when this is called).
    pub async fn enter_frame_of(&self, css: &str, origin: &str) -> E2eResult<()> {
        self.enter_frame(css).await?;
        let condition = format!("self.origin === {} && document.readyState === 'complete'", js_string(origin));
        self.wait_for(&condition, DEFAULT_WAIT).await?;
        Ok(())
    }

    /// Switches back to the top-level document.
    pub async fn to_top(&self) -> E2eResult<()> {
        for _ in 0..MAX_FRAME_DEPTH {
            if self.execute("return window === window.top;", vec![]).await? == Value::Bool(true) {
                return Ok(());
            }
            self.client.enter_parent_frame().await.doing("leaving a frame")?;
        }
        Err(E2eError::Check(format!("still not at the top after leaving {MAX_FRAME_DEPTH} frames")))
    }

    /// Runs `script` in the current frame and then, depth first, in every iframe below it, and returns
    /// each frame's path (iframe indexes from the starting frame) with the script's value. Ends in the frame
    /// it started in.
    pub async fn execute_in_every_frame(&self, script: &str) -> E2eResult<Vec<(Vec<usize>, Value)>> {
        let mut results = Vec::new();
        let mut path = Vec::new();
        self.walk_frames(script, &mut path, &mut results).await?;
        Ok(results)
    }

    async fn walk_frames(
        &self,
        script: &str,
        path: &mut Vec<usize>,
        results: &mut Vec<(Vec<usize>, Value)>,
    ) -> E2eResult<()> {
        results.push((path.clone(), self.execute(script, vec![]).await?));
        if path.len() >= MAX_FRAME_DEPTH {
            return Ok(());
        }
        let frames = self.client.find_all(Locator::Css("iframe")).await.doing("listing iframes")?;
        for (index, frame) in frames.into_iter().enumerate() {
            frame.enter_frame().await.doing(format!("entering iframe {index} of {path:?}"))?;
            path.push(index);
            let walked = Box::pin(self.walk_frames(script, path, results)).await;
            path.pop();
            self.client.enter_parent_frame().await.doing("leaving an iframe")?;
            walked?;
        }
        Ok(())
    }

    /// Every frame's demo-page state, one line each (`[path] origin url: state (error)`), from the top:
    /// what a failed wait should show. Leaves the session at the top.
    pub async fn describe_frames(&self) -> E2eResult<String> {
        self.to_top().await?;
        let script = "const d = window.__demo; return `${self.origin} ${location.pathname}: ` + \
            (d ? d.state + (d.error ? ` (${d.error})` : '') : 'no demo page');";
        let lines: Vec<String> = self
            .execute_in_every_frame(script)
            .await?
            .into_iter()
            .map(|(path, line)| format!("{path:?} {}", line.as_str().unwrap_or_default()))
            .collect();
        Ok(lines.join("\n"))
    }

    /// Closes the session (and its Chromium).
    pub async fn close(self) -> E2eResult<()> {
        self.client.close().await.doing("closing the session")
    }
}

/// A JavaScript string literal holding `text`.
pub fn js_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn preview(script: &str) -> String {
    let flat: String = script.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 80 { format!("{}…", flat.chars().take(80).collect::<String>()) } else { flat }
}
