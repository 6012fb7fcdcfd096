// comlink 4 from the npm registry over window messages: the exposing side allows only the parent's origin and
// posts only to it; the calling side posts only to the child's origin. (comlink's calling side does not check the
// origin of replies: it matches them by their random ids.)
import * as Comlink from "/npm/comlink/dist/esm/comlink.mjs";

export async function parent(win, childOrigin) {
  const remote = Comlink.wrap(Comlink.windowEndpoint(win, self, childOrigin));
  return { call: (args) => remote.echo(args), connectMs: null };
}

export async function child(parentOrigin) {
  Comlink.expose({ echo: (args) => args }, Comlink.windowEndpoint(window.parent, self, parentOrigin), [parentOrigin]);
}
