// What the worker bundle uses in place of the globals that would load Node's fetch implementation
// (undici) into the thread: the SDK names `Headers` to build and read header lists, and `FormData`
// only to test whether a request body is a form. The bundler puts these in for the free names
// inside the worker bundle (scripts/bundle.mjs, esbuild `inject`); the globals stay untouched.
export { Headers } from './web-headers.js';

/** Never a request body here: model requests are JSON. Only `instanceof` ever meets it. */
export class FormData {
  constructor() {
    throw new TypeError('multipart form bodies are not available in a cadre worker');
  }
}
