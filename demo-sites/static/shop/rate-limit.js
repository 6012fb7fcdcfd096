// A sliding-window rate limit: at most `limit` calls in any `windowMs`.

export class RateLimit {
  #stamps = [];

  constructor(limit, windowMs, now = () => Date.now()) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Counts one call; throws the 429 error when it is one too many. */
  take() {
    const now = this.now();
    this.#stamps = this.#stamps.filter((stamp) => now - stamp < this.windowMs);
    if (this.#stamps.length >= this.limit) {
      throw Object.assign(new Error("Search is rate limited"), {
        status: 429,
        retryAfter: Math.ceil(this.windowMs / 1000),
      });
    }
    this.#stamps.push(now);
  }
}
