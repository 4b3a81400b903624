// tabletop-js for Node (ES module): the CommonJS build re-exported, so both
// entry points share one wasm instance and one class.
import api from './index.cjs';

export const { Tabletop, TabletopError, init } = api;
export default init;
