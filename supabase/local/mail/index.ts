export async function startMailCatcher(_opts: { host: string; smtpPort: number; webPort: number }) {
  return { close: async () => {} };
}
