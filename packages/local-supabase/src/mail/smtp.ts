// The SMTP side of the catcher: accepts any sender and recipient, any (or no) credentials, no TLS.
import { SMTPServer } from 'smtp-server';
import { parseMail } from './message.ts';
import type { MailStore } from './store.ts';

export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export function createSmtpServer(store: MailStore): SMTPServer {
  return new SMTPServer({
    banner: 'local mail catcher',
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    size: MAX_MESSAGE_BYTES,
    logger: false,
    closeTimeout: 2000,
    // No DNS lookups for a local catcher: a reverse lookup costs every message a round trip.
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username || 'anonymous' });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_MESSAGE_BYTES) chunks.push(chunk);
      });
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          const err = Object.assign(new Error('Message exceeds the 10 MB size limit'), { responseCode: 552 });
          callback(err);
          return;
        }
        const raw = Buffer.concat(chunks);
        const envelope = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
        };
        // The sender hears 250 only once the message is in the store, so it can be read right away.
        parseMail(raw, envelope)
          .then((mail) => store.add(mail, raw))
          .then(
            () => callback(),
            (err: unknown) => {
              console.error('mail catcher: could not store a message:', err);
              callback(Object.assign(new Error('Message could not be stored'), { responseCode: 451 }));
            },
          );
      });
    },
  });
}
