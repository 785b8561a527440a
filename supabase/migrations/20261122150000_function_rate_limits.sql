-- Per-IP rate limits of the Edge Functions, counted in Postgres so that one limit holds across every
-- isolate hosted Supabase runs a function in. Fixed windows aligned to the epoch: one row per
-- (bucket, key, window), incremented atomically by INSERT ... ON CONFLICT ... RETURNING.
--
-- The counters live in schema `private`, which the API does not expose ([api] schemas); only
-- public.rate_limit_hit (SECURITY DEFINER) touches them, and only service_role may call it.
create schema if not exists private;
revoke all on schema private from public;

create table private.rate_limit_hits (
  bucket text not null constraint rate_limit_hits_bucket_length check (char_length(bucket) between 1 and 100),
  key text not null constraint rate_limit_hits_key_length check (char_length(key) between 1 and 200),
  window_start timestamptz not null,
  hits integer not null,
  primary key (bucket, key)
);

revoke all on table private.rate_limit_hits from public;

-- Counts one hit of `key` in `bucket` and says whether it is within `max_hits` per `window_seconds`.
-- Answers {"allowed", "hits", "remaining", "retry_after_seconds"}. A hit that opens a new window also
-- deletes the bucket's rows whose windows have ended, so the table holds only live windows.
create function public.rate_limit_hit(bucket text, key text, max_hits integer, window_seconds integer)
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  now_ts timestamptz := pg_catalog.clock_timestamp();
  span interval;
  started timestamptz;
  counted integer;
begin
  if max_hits is null or max_hits < 1 or window_seconds is null or window_seconds < 1 then
    raise exception 'rate_limit_hit: max_hits and window_seconds must be at least 1'
      using errcode = '22023';
  end if;
  span := pg_catalog.make_interval(secs => window_seconds);

  insert into private.rate_limit_hits as h (bucket, key, window_start, hits)
  values (rate_limit_hit.bucket, rate_limit_hit.key, now_ts, 1)
  on conflict on constraint rate_limit_hits_pkey do update
    set hits = case when h.window_start + span <= now_ts then 1 else h.hits + 1 end,
        window_start = case when h.window_start + span <= now_ts then now_ts else h.window_start end
  returning h.hits, h.window_start into counted, started;

  if counted = 1 then
    delete from private.rate_limit_hits h
     where h.bucket = rate_limit_hit.bucket and h.window_start + span <= now_ts;
  end if;

  return pg_catalog.jsonb_build_object(
    'allowed', counted <= max_hits,
    'hits', counted,
    'remaining', greatest(max_hits - counted, 0),
    'retry_after_seconds',
      greatest(1, pg_catalog.ceil(extract(epoch from started + span - now_ts)))::integer
  );
end;
$$;

-- Supabase grants EXECUTE on new functions in public to the API roles by default: take it back.
revoke execute on function public.rate_limit_hit(text, text, integer, integer) from public, anon, authenticated;
grant execute on function public.rate_limit_hit(text, text, integer, integer) to service_role;
