// The functions' own secrets, where the Supabase CLI keeps them for local functions: supabase/functions/.env
// (`supabase start` loads it; `supabase functions serve --env-file` names another file). The stack reads the
// same file, so it knows no secret of the project by name: whatever the file lists reaches the functions.
import { existsSync, readFileSync } from 'node:fs';

type Env = Record<string, string | undefined>;

export interface EnvFile {
  /** NAME=value lines. */
  values: Record<string, string>;
  /** Every name the file mentions: assigned, or declared in a comment `# NAME=` with nothing after it. */
  names: string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One value as dotenv writes it: 'single' (as is), "double" (\n escapes), or bare up to a ` #` comment. */
function readValue(raw: string): string {
  const value = raw.trim();
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length > 1) {
    const end = value.indexOf(quote, 1);
    if (end > 0) {
      const inner = value.slice(1, end);
      return quote === '"' ? inner.replace(/\\n/g, '\n').replace(/\\r/g, '\r').replace(/\\"/g, '"') : inner;
    }
  }
  const comment = value.search(/\s#/);
  return (comment >= 0 ? value.slice(0, comment) : value).trim();
}

/** Parses a .env file: `NAME=value`, optional `export `, blank lines and `#` comments. */
export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  const names = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    const declared = /^#\s*([A-Za-z_][A-Za-z0-9_]*)=\s*$/.exec(trimmed);
    if (declared) {
      names.add(declared[1]);
      continue;
    }
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const eq = trimmed.indexOf('=');
    if (eq <= 0) continue;
    const name = trimmed
      .slice(0, eq)
      .replace(/^export\s+/, '')
      .trim();
    if (!NAME.test(name)) continue;
    values[name] = readValue(trimmed.slice(eq + 1));
    names.add(name);
  }
  return { values, names: [...names] };
}

/** The file's entries, or none when there is no file. */
export function readEnvFile(path: string): EnvFile {
  return existsSync(path) ? parseEnvFile(readFileSync(path, 'utf8')) : { values: {}, names: [] };
}

/**
 * The secrets the functions get: every name the file mentions, with the value a non-empty environment
 * variable of that name gives (the project's .env, the shell), else the file's. Names starting with
 * SUPABASE_ are left out, as the CLI leaves them out: those are Supabase's own.
 */
export function functionSecrets(file: EnvFile, env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of file.names) {
    if (name.startsWith('SUPABASE_')) continue;
    const value = env[name] || file.values[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
