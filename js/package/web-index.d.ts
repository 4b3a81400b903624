// The browser build has the same API as the Node one; call `init()` (the
// default export) once before `new Tabletop()`.
export * from '../index.mjs';
export { default } from '../index.mjs';
