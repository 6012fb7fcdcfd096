// Declarative form tools: submitting a form as the agent (requestSubmit with its first enabled submit button; the
// submit event gets agentInvoked and respondWith for this submission only) and waiting for the page's response.

export function submitButtons(form) {
  return [...form.elements].filter((c) =>
    (c.localName === "button" && c.type === "submit") ||
    (c.localName === "input" && (c.type === "submit" || c.type === "image")));
}

// Submits as the visitor would with the form's first submit button (validation and submit handlers run). The
// submit event gets `agentInvoked` and `respondWith()` (the WebMCP draft's hook), for this submission only.
export function submitAsAgent(form) {
  const submission = { seen: false, event: null, response: undefined, leftDuringSubmit: false };
  let dispatching = false;
  const hook = (event) => {
    if (event.target !== form || submission.seen) return;
    submission.seen = true;
    submission.event = event;
    dispatching = true;
    Object.defineProperty(event, "agentInvoked", { value: true, configurable: true });
    Object.defineProperty(event, "respondWith", {
      configurable: true,
      value(response) {
        if (!dispatching) {
          throw new DOMException("respondWith() must be called while the submit event is dispatched", "InvalidStateError");
        }
        if (!event.defaultPrevented) {
          throw new DOMException("call event.preventDefault() before event.respondWith()", "InvalidStateError");
        }
        if (submission.response) throw new DOMException("respondWith() was already called", "InvalidStateError");
        submission.response = Promise.resolve(response);
        // Handled below; this keeps an early rejection from being reported as unhandled meanwhile.
        submission.response.catch(() => {});
      },
    });
  };
  const submitter = submitButtons(form).find((b) => !b.matches(":disabled")) ?? null;
  // The form's window: a form of a frame's document (forms.md) submits there.
  const win = form.ownerDocument.defaultView ?? window;
  win.addEventListener("submit", hook, { capture: true });
  try {
    form.requestSubmit(submitter);
  } finally {
    dispatching = false;
    win.removeEventListener("submit", hook, { capture: true });
  }
  submission.leftDuringSubmit = submission.seen && !form.isConnected;
  return submission;
}

export function untilAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason ?? new DOMException("The call was stopped.", "AbortError"));
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}
