// The browser build has the same API as the Node one; call `init()` (the
// default export) once before `new Tabletop()`.
export * from '../index.js';
export { default } from '../index.js';
