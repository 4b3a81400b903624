'use strict';
// tabletop-js for Node (CommonJS): the package's class over the wasm-bindgen
// build in this folder, loaded synchronously.
const { makeTabletop } = require('../lib/tabletop.cjs');

const api = makeTabletop(require('./tabletop_js.js'));
/** Nothing to load in Node; there for code that also runs in a browser. */
api.init = async () => api;
api.default = api.init;
module.exports = api;
