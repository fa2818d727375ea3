/* Banco: the player's profile and his chats' standings, as /stats and /top give them.
 * The server words every line (the chat's own texts); the page lays them out and draws
 * the net chart (plain SVG). Who asks is the initData Telegram signed, nothing else. */
(function () {
  'use strict';

  const TG = (window.Telegram && window.Telegram.WebApp) || null;
  function tg(fn) {
    if (!TG) return undefined;
    try { return fn(TG); } catch (e) { return undefined; }
  }
  tg((w) => w.ready());
  tg((w) => w.expand());

  // sent exactly as Telegram holds it: never parsed and rebuilt (its hash covers the bytes)
  const INIT_DATA = (TG && typeof TG.initData === 'string') ? TG.initData : '';
  const QUERY = new URLSearchParams(location.search);
  const TABLE = QUERY.get('table');
  const FROM_TABLE = QUERY.get('from') === 'table';
  const USER_LANG = String(tg((w) => w.initDataUnsafe.user.language_code) || '');
  const LANG0 = /^(ru|uk|be)/i.test(USER_LANG) ? 'ru' : 'en';
  const BUILTIN = {
    en: { loading: 'Loading…', network_error: 'No connection. Please try again.',
      profile: 'Profile', standings: 'Standings', back_table: 'Back to the table' },
    ru: { loading: 'Загрузка…', network_error: 'Нет связи. Попробуйте ещё раз.',
      profile: 'Профиль', standings: 'Лидеры', back_table: 'К столу' },
  };

  const S = { ui: null, page: QUERY.get('page') === 'standings' ? 'standings' : 'profile',
    profile: null, board: null, period: 'all', game: '', chat: '' };

  const $ = (id) => document.getElementById(id);
  function t(key) {
    return (S.ui && S.ui[key]) || BUILTIN[LANG0][key] || BUILTIN.en[key] || key;
  }

  // Server texts are escaped Telegram-HTML: only <b>, <i>, <u>, <s>, <code> are kept.
  const KEEP = new Set(['B', 'STRONG', 'I', 'EM', 'U', 'S', 'CODE']);
  function clean(node) {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) continue;
      if (child.nodeType !== Node.ELEMENT_NODE) { child.remove(); continue; }
      clean(child);
      if (!KEEP.has(child.tagName)) { child.replaceWith(...Array.from(child.childNodes)); continue; }
      for (const a of Array.from(child.attributes)) child.removeAttribute(a.name);
    }
  }
  function html(el, text) {
    const tpl = document.createElement('template');
    tpl.innerHTML = text == null ? '' : String(text);
    clean(tpl.content);
    el.replaceChildren(tpl.content);
    return el;
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function paras(box, lines) {
    box.replaceChildren(...lines.map((line) => html(el('p'), line)));
  }
  function list(ul, lines, emptyKey) {
    ul.replaceChildren(...(lines.length ? lines.map((line) => html(el('li'), line))
      : [el('li', 'empty', t(emptyKey))]));
  }

  function notice(text, error) {
    $('notice').textContent = text || '';
    $('notice').classList.toggle('error', !!error);
  }

  async function get(path, params) {
    const url = new URL(path, location.href);
    Object.keys(params || {}).forEach((k) => { if (params[k]) url.searchParams.set(k, params[k]); });
    let res;
    try {
      res = await fetch(url, { headers: { Authorization: 'tma ' + INIT_DATA }, cache: 'no-store' });
    } catch (e) {
      notice(t('network_error'), true);
      return null;
    }
    const body = await res.json().catch(() => null);
    if (!body || !body.ok) {
      notice(body && body.text ? body.text : t('network_error'), true);
      return null;
    }
    if (body.ui) S.ui = body.ui;
    if (body.lang) document.documentElement.lang = body.lang;
    notice('');
    return body;
  }

  // --- the chart -----------------------------------------------------------------------

  const W = 360, H = 170, PAD = { l: 6, r: 6, t: 26, b: 22 };
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs).forEach((k) => e.setAttribute(k, attrs[k]));
    if (text != null) e.textContent = text;
    return e;
  }
  function signed(n) { return n > 0 ? '+' + n : String(n); }

  /** His net summed day by day: a line through one point a day, the zero line dashed. */
  function drawChart(box, points) {
    if (!points.length) {
      box.replaceChildren(el('p', 'empty', t('chart_none')));
      return;
    }
    const nets = points.map((p) => p.net);
    const lo = Math.min(0, ...nets), hi = Math.max(0, ...nets);
    const span = hi - lo || 1;
    // a day's place on the time line: the days he did not play are gaps, not squeezed out
    const dayOf = (p) => Date.parse(p.day + 'T00:00:00Z') / 86400000;
    const first = dayOf(points[0]), days = dayOf(points[points.length - 1]) - first;
    const x = (i) => PAD.l + (days ? (dayOf(points[i]) - first) * (W - PAD.l - PAD.r) / days
      : (W - PAD.l - PAD.r) / 2);
    const y = (v) => PAD.t + (hi - v) * (H - PAD.t - PAD.b) / span;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': `${t('chart')}: ${signed(nets[nets.length - 1])}` });
    svg.append(svgEl('line', { class: 'zero', x1: PAD.l, x2: W - PAD.r, y1: y(0), y2: y(0) }));
    svg.append(svgEl('text', { class: 'zero-label', x: PAD.l, y: y(0) - 3 }, '0'));
    svg.append(svgEl('polyline', { class: 'line',
      points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.net).toFixed(1)}`).join(' ') }));
    points.forEach((p, i) => {
      const dot = svgEl('circle', { class: 'pt', cx: x(i).toFixed(1), cy: y(p.net).toFixed(1), r: 3.2 });
      dot.dataset.day = p.day;
      dot.dataset.net = p.net;
      dot.append(svgEl('title', {}, `${p.day}: ${signed(p.net)}`));
      svg.append(dot);
    });
    const last = points[points.length - 1];
    svg.append(svgEl('text', { class: 'last', x: W - PAD.r, y: 14, 'text-anchor': 'end' },
      signed(last.net)));
    svg.append(svgEl('text', points.length > 1 ? { class: 'axis', x: PAD.l, y: H - 4 }
      : { class: 'axis', x: x(0), y: H - 4, 'text-anchor': 'middle' }, points[0].day));
    if (points.length > 1) {
      svg.append(svgEl('text', { class: 'axis', x: W - PAD.r, y: H - 4, 'text-anchor': 'end' },
        last.day));
    }
    box.replaceChildren(svg);
  }

  // --- the pages -------------------------------------------------------------------------

  function renderProfile(p) {
    $('title').textContent = p.name;
    paras($('p-stats'), p.stats);
    $('h-chart').textContent = t('chart');
    drawChart($('chart'), p.chart);
    $('h-games').textContent = t('by_game');
    $('p-games').replaceChildren(...(p.games.length ? p.games.map((g) => {
      const d = el('details', 'game-box');
      d.dataset.game = g.game;
      d.append(el('summary', null, g.name));
      g.lines.slice(1).forEach((line) => d.append(html(el('p'), line)));
      return d;
    }) : [el('p', 'empty', t('chart_none'))]));
    $('h-titles').textContent = t('titles');
    list($('p-titles'), p.titles, 'titles_none');
    $('h-achievements').textContent = t('achievements');
    const ach = $('p-achievements');
    ach.replaceChildren(...(p.achievements.length ? p.achievements.map((a) => {
      const li = html(el('li'), a.line);
      li.append(el('span', 'where', a.where));
      return li;
    }) : [el('li', 'empty', t('achievements_none'))]));
    $('h-rating').textContent = t('rating');
    list($('p-rating'), p.ratings, 'rating_none');
  }

  function option(value, name, chosen) {
    const o = el('option', null, name);
    o.value = String(value);
    o.selected = String(value) === String(chosen);
    return o;
  }

  function renderBoard(b) {
    if (b.chat == null) {
      $('title').textContent = t('standings');
      $('chat-pick').hidden = true;
      paras($('s-top'), [t('no_chats')]);
      $('s-rating').hidden = true;
      $('periods').hidden = true;
      $('game').parentElement.hidden = true;
      return;
    }
    $('title').textContent = b.title;
    S.chat = String(b.chat);
    S.period = b.period;
    S.game = b.game;
    $('l-chat').textContent = t('chat');
    $('l-game').textContent = t('game');
    const chats = b.chats.some((c) => String(c.id) === S.chat) ? b.chats
      : [{ id: b.chat, name: b.title }, ...b.chats];
    $('chat').replaceChildren(...chats.map((c) => option(c.id, c.name, S.chat)));
    $('chat-pick').hidden = chats.length < 2;
    $('game').replaceChildren(...b.games.map((g) => option(g.key, g.name, S.game)));
    $('periods').replaceChildren(...b.periods.map((p) => {
      const btn = el('button', null, p.name);
      btn.type = 'button';
      btn.dataset.period = p.key;
      btn.setAttribute('aria-pressed', String(p.key === S.period));
      btn.addEventListener('click', () => { S.period = p.key; loadBoard(); });
      return btn;
    }));
    paras($('s-top'), b.lines);
    paras($('s-rating'), b.rating);
    document.body.dataset.board = `${S.chat}:${S.period}:${S.game}`;
  }

  async function loadProfile() {
    const p = await get('api/profile');
    if (!p) return;
    S.profile = p;
    renderProfile(p);
    labels();
    document.body.dataset.profile = 'ready';
  }

  async function loadBoard() {
    const b = await get('api/standings', S.chat ? { chat: S.chat, period: S.period, game: S.game }
      : { table: TABLE, period: S.period, game: S.game });
    if (!b) return;
    S.board = b;
    renderBoard(b);
    labels();
    if (b.chat == null) document.body.dataset.board = 'none';
  }

  function labels() {
    $('tab-profile').textContent = t('profile');
    $('tab-standings').textContent = t('standings');
    $('back').textContent = '‹ ' + t('back_table');
    if (S.page === 'profile' && S.profile) $('title').textContent = S.profile.name;
    if (S.page === 'standings' && S.board) {
      $('title').textContent = S.board.chat == null ? t('standings') : S.board.title;
    }
  }

  function show(page) {
    S.page = page;
    ['profile', 'standings'].forEach((p) => {
      $(p).hidden = p !== page;
      $('tab-' + p).setAttribute('aria-selected', String(p === page));
    });
    labels();
    if (page === 'profile' && !S.profile) loadProfile();
    if (page === 'standings' && !S.board) loadBoard();
  }

  $('tab-profile').addEventListener('click', () => show('profile'));
  $('tab-standings').addEventListener('click', () => show('standings'));
  $('chat').addEventListener('change', () => { S.chat = $('chat').value; loadBoard(); });
  $('game').addEventListener('change', () => { S.game = $('game').value; loadBoard(); });

  // opened from the table page: back to it (the header's link and Telegram's back button)
  const back = './' + (TABLE ? '?table=' + encodeURIComponent(TABLE) : '');
  if (FROM_TABLE) {
    $('back').hidden = false;
    $('back').href = back;
    tg((w) => { w.BackButton.onClick(() => { location.href = back; }); w.BackButton.show(); });
  }
  const scheme = tg((w) => w.colorScheme)
    || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  document.documentElement.dataset.scheme = scheme;
  notice(t('loading'));
  show(S.page);
}());
