import { Hono } from 'hono';
import type { StackContext } from '../context.ts';

export function authApp(_ctx: StackContext): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ version: 'local', name: 'GoTrue', description: 'GoTrue is a user registration and authentication API' }));
  return app;
}
