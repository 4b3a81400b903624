// Compiled (never run) by tests/js/types.test.mjs: the package seen from
// CommonJS (`require`), where the default export is `module.exports.default`.
import tabletop = require('tabletop-js');

export async function fromRequire(): Promise<string> {
  const loaded = await tabletop.default();
  const db: tabletop.Tabletop = new loaded.Tabletop();
  const rows: tabletop.Row[] = db.readRows({ tableName: 'projects/p/instances/i/tables/t' }).rows;
  // @ts-expect-error the class is a constructor, not a function
  tabletop.Tabletop();
  return `${rows.length} ${db.cbt('ls')}`;
}
