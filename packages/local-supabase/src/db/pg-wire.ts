// A connection to PostgreSQL that speaks the protocol's frontend side just far enough for Db.batch: the
// startup and password exchange (trust, cleartext, MD5, SCRAM-SHA-256), then calls that each send a sequence
// of messages (wire.ts's extendedBatch, one or more batches each ending in Sync) and read the answer up to
// the ReadyForQuery of each Sync. postgres.js cannot send several statements under one Sync, and that is what
// makes a request one round trip and one flush of the server's output. Plain TCP only: a DATABASE_URL that
// asks for TLS (sslmode) leaves batches to postgres.js.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { readReply } from './wire.ts';

export interface WireTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** The parts of a postgres:// URL a plain-TCP connection needs; undefined when the URL asks for TLS or a socket. */
export function wireTarget(url: string): WireTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname) return undefined;
  const sslmode = parsed.searchParams.get('sslmode') ?? parsed.searchParams.get('ssl');
  if (sslmode && sslmode !== 'disable' && sslmode !== 'false') return undefined;
  if (parsed.searchParams.has('host')) return undefined;
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username || process.env.PGUSER || 'postgres'),
    password: decodeURIComponent(parsed.password || process.env.PGPASSWORD || ''),
    database: decodeURIComponent(parsed.pathname.slice(1) || parsed.username || 'postgres'),
  };
}

/** An error with a Node-style code that isDatabaseUnavailable knows (a lost or refused connection). */
function connectionError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function message(type: string, ...parts: (Buffer | string)[]): Buffer {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** SCRAM-SHA-256 (RFC 5802 / 7677) as PostgreSQL runs it: the client's messages from the server's. */
export class Scram {
  readonly clientFirstBare: string;
  private readonly password: string;
  private readonly nonce: string;
  private serverSignature = '';

  /** PostgreSQL takes the user from the startup message and ignores SCRAM's, hence `*`. */
  constructor(password: string, nonce = randomBytes(18).toString('base64'), user = '*') {
    this.password = password;
    this.nonce = nonce;
    this.clientFirstBare = `n=${user},r=${this.nonce}`;
  }

  clientFirst(): string {
    return `n,,${this.clientFirstBare}`;
  }

  /** The client-final message for the server-first one. */
  clientFinal(serverFirst: string): string {
    const attrs = new Map(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)] as [string, string]));
    const serverNonce = attrs.get('r') ?? '';
    if (!serverNonce.startsWith(this.nonce)) throw new Error('SCRAM: the server nonce does not extend ours');
    const salt = Buffer.from(attrs.get('s') ?? '', 'base64');
    const iterations = Number(attrs.get('i'));
    const salted = pbkdf2Sync(this.password.normalize('NFKC'), salt, iterations, 32, 'sha256');
    const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
    const clientKey = hmac(salted, 'Client Key');
    const storedKey = createHash('sha256').update(clientKey).digest();
    const withoutProof = `c=biws,r=${serverNonce}`;
    const authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = hmac(storedKey, authMessage);
    const proof = Buffer.from(clientKey.map((byte, i) => byte ^ (signature[i] as number)));
    this.serverSignature = hmac(hmac(salted, 'Server Key'), authMessage).toString('base64');
    return `${withoutProof},p=${proof.toString('base64')}`;
  }

  /** Whether the server-final message proves the server knows the password too. */
  verify(serverFinal: string): boolean {
    return serverFinal === `v=${this.serverSignature}`;
  }
}

/** One connection: opened on the first call, opened again on the call after it was lost. */
export class WireConnection {
  private socket: Socket | undefined;
  private opening: Promise<Socket> | undefined;
  private pending:
    | { syncs: number; seen: number; chunks: Buffer[]; resolve(b: Buffer): void; reject(e: Error): void }
    | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private readonly target: WireTarget;
  /** Called when the connection is lost: the server forgot its prepared statements. */
  onLost: () => void = () => {};

  constructor(target: WireTarget) {
    this.target = target;
  }

  /** Sends `bytes`, which end in `syncs` Syncs, and resolves with everything up to the last ReadyForQuery. */
  async call(bytes: Uint8Array, syncs: number): Promise<Buffer> {
    const socket = await this.open();
    return new Promise<Buffer>((resolve, reject) => {
      this.pending = { syncs, seen: 0, chunks: [], resolve, reject };
      socket.write(bytes);
    });
  }

  close(): void {
    this.socket?.end(message('X'));
    this.socket = undefined;
  }

  private open(): Promise<Socket> {
    if (this.socket) return Promise.resolve(this.socket);
    this.opening ??= this.startup().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private startup(): Promise<Socket> {
    const { host, port, user, database, password } = this.target;
    return new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host, port, noDelay: true });
      let ready = false;
      let scram: Scram | undefined;
      let data: Buffer = Buffer.alloc(0);
      const fail = (err: Error) => {
        socket.destroy();
        reject(err);
      };
      socket.once('error', (err) => fail(err));
      socket.setTimeout(10_000, () =>
        fail(connectionError('CONNECT_TIMEOUT', 'PostgreSQL did not answer the connection within 10 s')),
      );
      socket.once('connect', () => {
        const params = Buffer.from(
          `user\0${user}\0database\0${database}\0application_name\0signals-local-stack\0client_encoding\0UTF8\0\0`,
        );
        socket.write(Buffer.concat([int32(params.length + 8), int32(196608), params]));
      });
      const onStartupData = (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        while (data.length >= 5) {
          const length = data.readInt32BE(1);
          if (data.length < 1 + length) return;
          const type = String.fromCharCode(data[0] as number);
          const body = data.subarray(5, 1 + length);
          data = data.subarray(1 + length);
          if (type === 'E') {
            const { error } = readReply(Buffer.concat([message('E', body), message('Z', 'I')]));
            return fail(error ?? new Error('PostgreSQL refused the connection'));
          }
          if (type === 'R') {
            const kind = body.readInt32BE(0);
            if (kind === 3) socket.write(message('p', password, '\0'));
            else if (kind === 5) {
              const inner = createHash('md5')
                .update(password + user)
                .digest('hex');
              const outer = createHash('md5').update(Buffer.concat([Buffer.from(inner), body.subarray(4, 8)]));
              socket.write(message('p', `md5${outer.digest('hex')}`, '\0'));
            } else if (kind === 10) {
              if (!body.subarray(4).toString().split('\0').includes('SCRAM-SHA-256')) {
                return fail(new Error('PostgreSQL asked for a SASL mechanism other than SCRAM-SHA-256'));
              }
              scram = new Scram(password);
              const first = Buffer.from(scram.clientFirst());
              socket.write(message('p', 'SCRAM-SHA-256\0', int32(first.length), first));
            } else if (kind === 11 && scram) {
              socket.write(message('p', scram.clientFinal(body.subarray(4).toString())));
            } else if (kind === 12 && scram) {
              if (!scram.verify(body.subarray(4).toString())) return fail(new Error('SCRAM: wrong server signature'));
            } else if (kind !== 0) {
              return fail(new Error(`PostgreSQL asked for an authentication method not supported here (${kind})`));
            }
          }
          if (type === 'Z') {
            ready = true;
            socket.setTimeout(0);
            socket.off('data', onStartupData);
            socket.removeAllListeners('error');
            this.attach(socket, data);
            return resolve(socket);
          }
        }
      };
      socket.on('data', onStartupData);
      socket.once('close', () => {
        if (!ready) reject(connectionError('CONNECTION_CLOSED', 'PostgreSQL closed the connection during startup'));
      });
    });
  }

  private attach(socket: Socket, rest: Buffer): void {
    this.socket = socket;
    this.buffered = rest;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => {});
    socket.once('close', () => {
      this.socket = undefined;
      this.buffered = Buffer.alloc(0);
      this.onLost();
      const pending = this.pending;
      this.pending = undefined;
      pending?.reject(connectionError('CONNECTION_CLOSED', 'The connection to PostgreSQL was closed'));
    });
  }

  /**
   * Hands a call its bytes once the ReadyForQuery of each of its Syncs has come. Whole messages only: a
   * message split across reads waits for its end, and what comes between calls (a notice) is dropped.
   */
  private receive(chunk: Buffer): void {
    const data: Buffer = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    let pos = 0;
    let taken = 0;
    while (data.length - pos >= 5) {
      const length = data.readInt32BE(pos + 1);
      if (data.length - pos < 1 + length) break;
      const isReady = data[pos] === 0x5a; // 'Z'
      pos += 1 + length;
      const pending = this.pending;
      if (!pending) {
        taken = pos;
        continue;
      }
      if (isReady) pending.seen += 1;
      if (pending.seen === pending.syncs) {
        pending.chunks.push(data.subarray(taken, pos));
        taken = pos;
        this.pending = undefined;
        pending.resolve(pending.chunks.length === 1 ? (pending.chunks[0] as Buffer) : Buffer.concat(pending.chunks));
      }
    }
    if (this.pending && pos > taken) this.pending.chunks.push(data.subarray(taken, pos));
    this.buffered = data.subarray(pos);
  }
}
