// The install() options of every bridge in the benchmark: the result cap and the calls-in-flight limit are raised
// so that the 64 KiB echo is not truncated and 2000 calls at once are not refused by the provider's flood guard.
export const BRIDGE_OPTIONS = Object.freeze({ resultCap: 1_000_000, maxCallsInFlight: 4096 });
