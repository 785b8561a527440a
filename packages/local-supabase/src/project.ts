// supabase/config.toml, read once at start and shared by the services that honour it
// ([api] max_rows, [auth] and its sub-tables, [functions.<name>]).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';

export type TomlTable = Record<string, unknown>;

/** The parsed config.toml of a supabase folder; `{}` when there is none. */
export function readProjectToml(supabaseDir: string): TomlTable {
  const file = join(supabaseDir, 'config.toml');
  if (!existsSync(file)) return {};
  try {
    return parse(readFileSync(file, 'utf8')) as TomlTable;
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** A sub-table, or `{}` when it is missing or not a table. */
export function tomlTable(value: unknown): TomlTable {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as TomlTable) : {};
}
