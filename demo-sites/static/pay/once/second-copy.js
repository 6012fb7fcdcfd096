// With `?twice=1`, a second copy of the bridge module (another URL, so another module instance and another
// wasm instance) is loaded next to the page's own and installed too, as a second script on a real page might.
// Its install() must join the first bridge instead of adding a listener of its own.
const twice = new URLSearchParams(location.search).get("twice") === "1";

window.__secondCopy = twice
  ? (async () => {
      const copy = await import("/pkg/interpane.js?copy");
      await copy.default();
      return copy.install();
    })()
  : Promise.resolve(null);
