// The figures, measured the same way for every implementation. `call(args)` returns a promise of what the echo
// tool on the other side returned, which must be the arguments it was given.

/** A string of `length` characters (letters and digits, so that no format has to escape it). */
export function filler(length) {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return alphabet.repeat(Math.ceil(length / alphabet.length)).slice(0, length);
}

/** The value at quantile `q` (0..1) of ascending `sorted` samples (nearest rank). */
export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

function checkEcho(result, seq, length) {
  if (!result || result.seq !== seq || typeof result.text !== "string" || result.text.length !== length) {
    const shown = JSON.stringify(result)?.slice(0, 120);
    throw new Error(`call ${seq} came back wrong: ${shown}`);
  }
}

/**
 * `count` calls one after another (after `warmup` unmeasured ones), each with `{ seq, text }` of `textLength`
 * characters. Returns the latency quantiles in microseconds and the calls per second over the whole loop.
 */
export async function sequential(call, { count, warmup, textLength }) {
  const text = filler(textLength);
  for (let i = 0; i < warmup; i++) checkEcho(await call({ seq: -1 - i, text }), -1 - i, textLength);
  const samples = new Float64Array(count);
  const started = performance.now();
  for (let seq = 0; seq < count; seq++) {
    const before = performance.now();
    const result = await call({ seq, text });
    samples[seq] = performance.now() - before;
    checkEcho(result, seq, textLength);
  }
  const totalMs = performance.now() - started;
  samples.sort();
  const us = (ms) => Math.round(ms * 1000 * 10) / 10;
  return {
    count,
    textLength,
    p50Us: us(quantile(samples, 0.5)),
    p90Us: us(quantile(samples, 0.9)),
    p99Us: us(quantile(samples, 0.99)),
    minUs: us(samples[0]),
    totalMs: Math.round(totalMs * 100) / 100,
    callsPerSecond: Math.round((count / totalMs) * 1000),
  };
}

/**
 * `count` calls issued in the same task, then awaited together (after a burst of `warmup`). Returns the time from
 * the first call to the last answer and the calls per second; calls that fail are counted, with the first error.
 */
export async function concurrent(call, { count, warmup, textLength }) {
  const text = filler(textLength);
  if (warmup > 0) {
    await Promise.allSettled(Array.from({ length: warmup }, (_, i) => call({ seq: -1 - i, text })));
  }
  const started = performance.now();
  const calls = [];
  for (let seq = 0; seq < count; seq++) calls.push(call({ seq, text }));
  const settled = await Promise.allSettled(calls);
  const totalMs = performance.now() - started;
  let failed = 0;
  let firstError = null;
  settled.forEach((outcome, seq) => {
    try {
      if (outcome.status === "rejected") throw outcome.reason;
      checkEcho(outcome.value, seq, textLength);
    } catch (error) {
      failed += 1;
      firstError ??= String((error && error.message) || error);
    }
  });
  return {
    count,
    failed,
    firstError,
    totalMs: Math.round(totalMs * 100) / 100,
    callsPerSecond: Math.round((count / totalMs) * 1000),
  };
}
