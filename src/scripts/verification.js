(() => {
  const r = document.querySelector('[data-verification]'),
    q = new URLSearchParams(location.search),
    s = q.get('status');
  const n = /[#&]error(_code)?=/.test(location.hash)
    ? 'user-expired'
    : q.get('type') === 'user'
      ? 'user'
      : ['expired', 'invalid', 'unsubscribed', 'unsubscribe-invalid'].includes(s)
        ? s
        : 'email';
  const v = r.querySelector(`[data-variant="${n}"]`),
    d = v.dataset;
  if (v.hidden) {
    for (const e of r.querySelectorAll('[data-variant]')) e.hidden = e !== v;
    r.querySelector('h1').textContent = d.heading;
    r.querySelector('[data-mark]').textContent = d.symbol;
    document.title = d.title;
    document.querySelector('meta[name=description]')?.setAttribute('content', d.description);
  }
  for (const k of ['access_token', 'refresh_token', 'code', 'token', 'token_hash']) q.delete(k);
  history.replaceState(history.state, '', location.pathname + (q.size ? `?${q}` : ''));
})();
