import { Hono } from 'hono';
import type { StackContext } from '../context.ts';

export function restApp(_ctx: StackContext): Hono {
  return new Hono();
}
