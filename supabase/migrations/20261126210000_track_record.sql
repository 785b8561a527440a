-- The public track record, computed from the signals ledger only (docs/ledger.md#track-record): one function that
-- anyone may call through the API, public.track_record(), returning the figures overall, per tier and per calendar
-- month, the closed signals and the equity curve as one JSON document.
--
-- The rule:
--   - a signal counts when it closed with tp3_hit, sl_hit or closed; expired and cancelled ones are listed with no
--     result and not counted;
--   - its exit is TP3 (tp3_hit), the stop in force when the stop was hit (sl_hit: current_stop, so a moved stop
--     counts, whatever price the event reported), or the closing price (closed: the event's price);
--   - pips = (exit - entry) / pip size, negated for a SELL; the pip size is 0.01 when the quote currency is JPY,
--     0.0001 otherwise;
--   - a win is pips > 0, every other counted signal a loss;
--   - profit factor = sum of winning pips / |sum of losing pips|, null when nothing was lost;
--   - max drawdown = the deepest fall of cumulative pips (from 0 or an earlier high) in close-time order
--     (ties by id), 0 or negative.
-- Months are calendar months in UTC by close time. Figures are exact numerics (no rounding); the page formats them.

-- Times as the ledger writes them elsewhere: UTC ISO-8601 with milliseconds and 'Z'.
create function private.track_record_time(t timestamptz)
  returns text
  language sql
  immutable
  set search_path = ''
as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
$$;

create function public.track_record()
  returns jsonb
  language sql
  stable
  security definer
  set search_path = ''
as $$
  with final as (
    -- Only signals in a final state: what a visitor may read anyway.
    select s.id, s.tier, s.pair, s.direction, s.entry, s.status, s.closed_at,
           case s.status
             when 'tp3_hit' then s.tp3
             when 'sl_hit' then s.current_stop
             when 'closed' then s.exit_price
           end as exit,
           case when right(s.pair, 3) = 'JPY' then 0.01 else 0.0001 end as pip
      from public.signals s
     where s.status in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled')
  ),
  listed as (
    select f.*,
           trim_scale((f.exit - f.entry) / f.pip * case f.direction when 'BUY' then 1 else -1 end) as pips
      from final f
  ),
  counted as (
    select l.*, to_char(l.closed_at at time zone 'UTC', 'YYYY-MM') as month
      from listed l
     where l.status in ('tp3_hit', 'sl_hit', 'closed')
  ),
  -- Each counted signal belongs to three groups: overall, its tier, its month.
  grouped as (
    select c.id, c.closed_at, c.pips, g.kind, g.key
      from counted c
      cross join lateral (values ('overall', 'all'), ('tier', c.tier), ('month', c.month)) as g (kind, key)
  ),
  running as (
    select g.*,
           sum(g.pips) over (partition by g.kind, g.key order by g.closed_at, g.id
                             rows between unbounded preceding and current row) as cum
      from grouped g
  ),
  peaked as (
    select r.*,
           greatest(0, max(r.cum) over (partition by r.kind, r.key order by r.closed_at, r.id
                                        rows between unbounded preceding and current row)) as peak
      from running r
  ),
  stats as (
    select p.kind, p.key,
           count(*)::int as trades,
           (count(*) filter (where p.pips > 0))::int as wins,
           sum(p.pips) as pips,
           coalesce(sum(p.pips) filter (where p.pips > 0), 0) as won,
           coalesce(sum(p.pips) filter (where p.pips < 0), 0) as lost,
           min(p.cum - p.peak) as drawdown
      from peaked p
     group by p.kind, p.key
  ),
  figures as (
    select st.kind, st.key,
           jsonb_build_object(
             'trades', st.trades,
             'wins', st.wins,
             'losses', st.trades - st.wins,
             'win_rate', st.wins::numeric / st.trades,
             'pips', trim_scale(st.pips),
             'profit_factor', case when st.lost < 0 then st.won / -st.lost end,
             'max_drawdown_pips', trim_scale(least(0, st.drawdown))
           ) as figures
      from stats st
  ),
  empty as (
    select jsonb_build_object(
      'trades', 0, 'wins', 0, 'losses', 0, 'win_rate', null, 'pips', 0, 'profit_factor', null,
      'max_drawdown_pips', 0
    ) as figures
  )
  select jsonb_build_object(
    'period', jsonb_build_object(
      'first_close', (select private.track_record_time(min(c.closed_at)) from counted c),
      'last_close', (select private.track_record_time(max(c.closed_at)) from counted c)
    ),
    'overall', coalesce((select f.figures from figures f where f.kind = 'overall'), (select figures from empty)),
    'tiers', (
      select jsonb_agg(
               jsonb_build_object('tier', t.tier)
                 || coalesce((select f.figures from figures f where f.kind = 'tier' and f.key = t.tier),
                             (select figures from empty))
               order by t.n)
        from (values (1, 'foundation'), (2, 'growth'), (3, 'momentum')) as t (n, tier)
    ),
    'months', coalesce((
      select jsonb_agg(jsonb_build_object('month', f.key) || f.figures order by f.key)
        from figures f
       where f.kind = 'month'
    ), '[]'::jsonb),
    'signals', coalesce((
      select jsonb_agg(
               jsonb_build_object(
                 'id', l.id, 'tier', l.tier, 'pair', l.pair, 'direction', l.direction,
                 'entry', trim_scale(l.entry), 'exit', trim_scale(l.exit), 'status', l.status,
                 'closed_at', private.track_record_time(l.closed_at),
                 'pips', case when l.status in ('tp3_hit', 'sl_hit', 'closed') then l.pips end
               )
               order by l.closed_at desc, l.id desc)
        from listed l
    ), '[]'::jsonb),
    'curve', coalesce((
      select jsonb_agg(
               jsonb_build_object('at', private.track_record_time(r.closed_at), 'id', r.id,
                                  'pips', trim_scale(r.cum))
               order by r.closed_at, r.id)
        from running r
       where r.kind = 'overall'
    ), '[]'::jsonb)
  );
$$;

comment on function public.track_record() is
  'The public track record computed from final signals of the ledger (docs/ledger.md#track-record)';

revoke execute on function private.track_record_time(timestamptz) from public, anon, authenticated;
revoke execute on function public.track_record() from public;
grant execute on function public.track_record() to anon, authenticated, service_role;
