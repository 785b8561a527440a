// Captured mail: newest first in memory, capped, and (with a folder) one JSON + one .eml file per message
// so the list survives a restart.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapturedMail } from './message.ts';

interface Entry {
  seq: number;
  mail: CapturedMail;
}

export class MailStore {
  readonly dir: string | undefined;
  readonly cap: number;
  /** Newest first. */
  private records: Entry[] = [];
  private byId = new Map<string, Entry>();
  /** Raw sources when there is no folder. */
  private raws = new Map<string, Buffer>();
  private seq = 0;

  constructor(options: { dir?: string; cap?: number } = {}) {
    this.dir = options.dir;
    this.cap = options.cap ?? 1000;
    if (this.dir) this.load(this.dir);
  }

  private load(dir: string) {
    mkdirSync(dir, { recursive: true });
    const found: Entry[] = [];
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.json')) continue;
      try {
        const rec = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Entry;
        if (rec?.mail?.ID && Number.isFinite(rec.seq)) found.push(rec);
      } catch {
        // A file cut short by a crash: the message is lost, the rest load.
      }
    }
    found.sort((a, b) => b.seq - a.seq);
    this.records = found;
    for (const rec of found) this.byId.set(rec.mail.ID, rec);
    this.seq = found[0]?.seq ?? 0;
    // Sources whose message never got saved, and temporary files, are left-overs of a crash.
    for (const file of readdirSync(dir)) {
      const id = file.replace(/\.eml$/, '');
      if (file.endsWith('.tmp') || (file.endsWith('.eml') && !this.byId.has(id)))
        rmSync(join(dir, file), { force: true });
    }
    // Past the cap (a smaller cap than last time): the oldest go.
    for (const rec of this.records.splice(this.cap)) {
      this.byId.delete(rec.mail.ID);
      for (const ext of ['json', 'eml']) rmSync(join(dir, `${rec.mail.ID}.${ext}`), { force: true });
    }
  }

  get size(): number {
    return this.records.length;
  }

  /** Newest first. */
  list(): CapturedMail[] {
    return this.records.map((r) => r.mail);
  }

  get(id: string): CapturedMail | undefined {
    return this.byId.get(id)?.mail;
  }

  async add(mail: CapturedMail, raw: Buffer): Promise<void> {
    const rec: Entry = { seq: ++this.seq, mail };
    if (this.dir) {
      // Source first: a JSON file always has its source beside it.
      await writeFile(join(this.dir, `${mail.ID}.eml`), raw);
      await this.save(rec);
    } else {
      this.raws.set(mail.ID, raw);
    }
    this.records.unshift(rec);
    this.byId.set(mail.ID, rec);
    if (this.records.length > this.cap) {
      await this.remove(this.records.slice(this.cap).map((r) => r.mail.ID));
    }
  }

  async raw(id: string): Promise<Buffer | undefined> {
    if (!this.byId.has(id)) return undefined;
    if (!this.dir) return this.raws.get(id);
    return readFile(join(this.dir, `${id}.eml`)).catch(() => undefined);
  }

  async markRead(id: string): Promise<void> {
    const rec = this.byId.get(id);
    if (!rec || rec.mail.Read) return;
    rec.mail.Read = true;
    if (this.dir) await this.save(rec);
  }

  /** Deletes the given messages, or all of them. */
  async remove(ids?: string[]): Promise<void> {
    const doomed = ids ? ids.filter((id) => this.byId.has(id)) : this.records.map((r) => r.mail.ID);
    const set = new Set(doomed);
    this.records = this.records.filter((r) => !set.has(r.mail.ID));
    for (const id of doomed) {
      this.byId.delete(id);
      this.raws.delete(id);
    }
    if (this.dir) {
      const dir = this.dir;
      await Promise.all(
        doomed.flatMap((id) => [
          rm(join(dir, `${id}.json`), { force: true }),
          rm(join(dir, `${id}.eml`), { force: true }),
        ]),
      );
    }
  }

  private async save(rec: Entry) {
    if (!this.dir) return;
    const file = join(this.dir, `${rec.mail.ID}.json`);
    await writeFile(`${file}.tmp`, JSON.stringify(rec));
    // Rename is atomic: a reader never sees half a file.
    await rename(`${file}.tmp`, file);
  }
}
