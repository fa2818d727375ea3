/* Banco: the live table as a Telegram Mini App. Protocol: docs/webapp.md.
 * No framework, no build step: one snapshot in, the whole page drawn from it. */
(function () {
  'use strict';

  // --- Telegram ----------------------------------------------------------------------

  const TG = (window.Telegram && window.Telegram.WebApp) || null;
  function tg(fn) {
    if (!TG) return undefined;
    try { return fn(TG); } catch (e) { return undefined; } // an older client lacks it
  }
  tg((w) => w.ready());
  tg((w) => w.expand());

  // sent exactly as Telegram holds it: never parsed and rebuilt (its hash covers the bytes)
  const INIT_DATA = (TG && typeof TG.initData === 'string') ? TG.initData : '';
  const TABLE = new URLSearchParams(location.search).get('table');
  const USER_LANG = String(tg((w) => w.initDataUnsafe.user.language_code) || '');

  function haptic(kind, style) {
    tg((w) => {
      const h = w.HapticFeedback;
      if (!h) return;
      if (kind === 'impact') h.impactOccurred(style);
      else if (kind === 'notify') h.notificationOccurred(style);
      else if (kind === 'select') h.selectionChanged();
    });
  }

  // --- words ----------------------------------------------------------------------------
  // The page's own words come from snapshot.ui; these hold the same keys for the time
  // before the first snapshot and for any key the server leaves out.

  const BUILTIN = {
    en: {
      connecting: 'Connecting…', connected: 'Online', reconnecting: 'Reconnecting…',
      offline: 'Offline', log: 'Log', log_empty: 'Nothing has happened yet.', close: 'Close',
      your_cards: 'Your cards', your_turn: 'Your turn', waiting_for: 'Waiting for {names}',
      seconds: '{n}s', coup: 'Coup #{n}', bank: 'Bank', pot: 'Pot', result: 'Result',
      amount: 'Amount', confirm: 'Confirm', pick_cards: 'Tap your cards to choose up to {n}',
      spectator: 'You are watching this table', you: 'you', network_error:
        'No connection. Please try again.', card_back: 'Face-down card',
      card_name: '{rank} of {suit}',
      card_ranks: 'Two,Three,Four,Five,Six,Seven,Eight,Nine,Ten,Jack,Queen,King,Ace',
      card_suits: 'clubs,diamonds,hearts,spades', table: 'Table', standings: 'Standings',
    },
    ru: {
      connecting: 'Подключение…', connected: 'В сети', reconnecting: 'Переподключение…',
      offline: 'Нет связи', log: 'Журнал', log_empty: 'Пока ничего не произошло.',
      close: 'Закрыть', your_cards: 'Ваши карты', your_turn: 'Ваш ход',
      waiting_for: 'Ждём: {names}', seconds: '{n} с', coup: 'Кон №{n}', bank: 'Банк',
      pot: 'В банке', result: 'Итог', amount: 'Сумма', confirm: 'Подтвердить',
      pick_cards: 'Нажмите на свои карты, чтобы выбрать (до {n})',
      spectator: 'Вы наблюдаете за столом', you: 'вы',
      network_error: 'Нет связи. Попробуйте ещё раз.', card_back: 'Карта рубашкой вверх',
      card_name: '{rank} {suit}',
      card_ranks: 'Двойка,Тройка,Четвёрка,Пятёрка,Шестёрка,Семёрка,Восьмёрка,Девятка,' +
        'Десятка,Валет,Дама,Король,Туз',
      card_suits: 'треф,бубен,червей,пик', table: 'Стол', standings: 'Лидеры',
    },
  };
  const LANG0 = USER_LANG.toLowerCase().startsWith('ru') ? 'ru' : 'en';

  function builtinFor(lang) {
    const l = String(lang || '').toLowerCase();
    if (l.startsWith('ru')) return BUILTIN.ru;
    if (l) return BUILTIN.en;
    return BUILTIN[LANG0];
  }

  /** A word of the page: the snapshot's ui, else the built-in table; {name}s filled. */
  function t(key, vars) {
    const ui = S.snap && S.snap.ui;
    let text = ui && typeof ui[key] === 'string' ? ui[key]
      : builtinFor(S.snap && S.snap.lang)[key];
    if (text === undefined) text = BUILTIN.en[key] || key;
    if (vars) text = text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return text;
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({
      '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  /** A page word around server HTML: the word escaped, the {name}s already HTML. */
  function tHtml(key, htmlVars) {
    const raw = t(key);
    return esc(raw).replace(/\{(\w+)\}/g, (m, k) => (k in htmlVars ? htmlVars[k] : m));
  }

  // --- Telegram-HTML from the server ---------------------------------------------------
  // Server texts are escaped Telegram-HTML; they are set with innerHTML, keeping only the
  // tags Telegram knows (defence in depth: a slip upstream cannot run a script here).

  const KEEP = new Set(['B', 'STRONG', 'I', 'EM', 'U', 'INS', 'S', 'STRIKE', 'DEL', 'CODE',
    'PRE', 'A', 'BR', 'BLOCKQUOTE', 'SPAN', 'TG-SPOILER']);
  const DROP = new Set(['SCRIPT', 'STYLE', 'IFRAME', 'OBJECT', 'EMBED', 'TEMPLATE', 'LINK',
    'META', 'SVG', 'MATH', 'IMG', 'VIDEO', 'AUDIO', 'FORM', 'INPUT', 'TEXTAREA', 'SELECT']);

  function clean(node) {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) continue;
      if (child.nodeType !== Node.ELEMENT_NODE || DROP.has(child.tagName)) {
        child.remove();
        continue;
      }
      clean(child);
      if (!KEEP.has(child.tagName)) {
        child.replaceWith(...Array.from(child.childNodes));
        continue;
      }
      for (const a of Array.from(child.attributes)) {
        const href = child.tagName === 'A' && a.name === 'href'
          && /^(https?:|tg:)/i.test(a.value.trim());
        const spoiler = child.tagName === 'SPAN' && a.name === 'class' && a.value === 'tg-spoiler';
        if (!href && !spoiler) child.removeAttribute(a.name);
      }
      if (child.tagName === 'A') child.setAttribute('rel', 'noopener noreferrer');
    }
  }

  function setHtml(el, html) {
    const tpl = document.createElement('template');
    tpl.innerHTML = html == null ? '' : String(html);
    clean(tpl.content);
    el.replaceChildren(tpl.content);
  }

  function plainOf(html) {
    const tpl = document.createElement('template');
    tpl.innerHTML = html == null ? '' : String(html);
    return tpl.content.textContent || '';
  }

  // --- cards ------------------------------------------------------------------------------

  const RANKS = '23456789TJQKA';
  const SUITS = 'cdhs';
  const CIRCLE = (cx, cy, r) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;
  const SUIT_PATH = {
    h: 'M50 92C18 64 4 48 4 29 4 14 15 4 29 4c9 0 17 5 21 13 4-8 12-13 21-13 14 0 25 10 25 25 0 19-14 35-46 63Z',
    d: 'M50 3 85 50 50 97 15 50Z',
    s: 'M50 3C40 20 5 38 5 61c0 14 11 24 24 24 8 0 14-4 18-9-1 9-5 16-13 21h32c-8-5-12-12-13-21 4 5 10 9 18 9 13 0 24-10 24-24C95 38 60 20 50 3Z',
    c: CIRCLE(50, 27, 21) + CIRCLE(26, 60, 21) + CIRCLE(74, 60, 21) + CIRCLE(50, 52, 12)
      + 'M46 62c0 15-4 25-12 34h32c-8-9-12-19-12-34Z',
  };
  const CARD_RE = /^[2-9TJQKA][cdhs]$/;

  function cardName(code) {
    if (!CARD_RE.test(code)) return t('card_back');
    const ranks = t('card_ranks').split(',');
    const suits = t('card_suits').split(',');
    return t('card_name', {
      rank: ranks[RANKS.indexOf(code[0])] || code[0],
      suit: suits[SUITS.indexOf(code[1])] || code[1],
    });
  }

  function suitSvg(suit, cls) {
    return `<svg class="${cls}" viewBox="0 0 100 100" aria-hidden="true" focusable="false">`
      + `<path d="${SUIT_PATH[suit]}"/></svg>`;
  }

  /** One card: a face ("Ah") or, for anything else, a back. */
  function cardEl(code, size, tag) {
    const el = document.createElement(tag || 'div');
    if (tag === 'button') el.type = 'button';
    else el.setAttribute('role', 'img');
    if (!CARD_RE.test(code || '')) {
      el.className = `card ${size} back`;
      el.setAttribute('aria-label', t('card_back'));
      return el;
    }
    const suit = code[1];
    el.className = `card ${size} ${suit === 'h' || suit === 'd' ? 'red' : 'black'}`;
    el.dataset.card = code;
    el.setAttribute('aria-label', cardName(code));
    const rank = code[0] === 'T' ? '10' : code[0];
    el.innerHTML = `<span class="idx" aria-hidden="true"><b${rank === '10' ? ' class="ten"' : ''}>${rank}</b>`
      + `${suitSvg(suit, 'pip')}</span>`
      + (size === 'big' ? suitSvg(suit, 'face') : '');
    return el;
  }

  // --- state ------------------------------------------------------------------------------

  const S = {
    snap: null,
    ws: null,
    attempts: 0,
    retryTimer: null,
    stopped: false,
    conn: 'connecting',
    pending: false,
    actionsSig: '',
    amounts: {},        // kind -> chosen amount, for the current decision
    amountChoice: {},   // kind -> chosen choice index (an amount with choices)
    picked: new Set(),  // indexes into me.cards picked for an own_cards action
    pickedSig: '',
    deadlineAt: null,   // performance.now() seconds when the clock runs out
    deadlineTotal: 0,
    deadlineKey: null,
    turnDecision: null,
    seenFirst: false,
    resultChoice: null, // {coup, open}: the viewer opened or closed that coup's result
  };

  const $ = (id) => document.getElementById(id);
  const nowSec = () => performance.now() / 1000;

  function newer(a, b) { // -1, 0, 1: a's (version, rev) against b's
    const av = Number(a.version) || 0;
    const bv = Number(b.version) || 0;
    if (av !== bv) return av < bv ? -1 : 1;
    const ar = Number(a.rev) || 0;
    const br = Number(b.rev) || 0;
    return ar === br ? 0 : (ar < br ? -1 : 1);
  }

  /** Take a snapshot unless it is older than the one shown (or not newer, when strict). */
  function accept(snap, strict) {
    if (!snap || typeof snap !== 'object' || !snap.table) return false;
    if (S.snap) {
      const c = newer(snap, S.snap);
      if (c < 0 || (strict && c === 0)) return false;
    }
    const prevDeadline = S.snap && S.snap.table.deadline;
    S.snap = snap;
    const tb = snap.table;
    if (tb.deadline == null || snap.server_time == null) {
      S.deadlineAt = null;
      S.deadlineKey = null;
    } else {
      // the server's clock, not the device's: only the difference counts
      const left = Number(tb.deadline) - Number(snap.server_time);
      S.deadlineAt = nowSec() + left;
      if (S.deadlineKey !== tb.deadline || prevDeadline !== tb.deadline) S.deadlineTotal = left;
      S.deadlineKey = tb.deadline;
    }
    hideFatal();
    render();
    return true;
  }

  // --- the connection --------------------------------------------------------------------

  const STOP_CODES = new Set(['auth', 'not_member', 'no_table']);

  function wsUrl() {
    const u = new URL('ws', location.href);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    return u.href;
  }

  function setConn(state) {
    S.conn = state;
    const el = $('conn');
    el.dataset.state = state;
    el.querySelector('span').textContent = t(state);
    $('splash-text').textContent = t(state === 'connected' ? 'connecting' : state);
  }

  function connect() {
    if (S.stopped) return;
    clearTimeout(S.retryTimer);
    S.retryTimer = null;
    let ws;
    try {
      ws = new WebSocket(wsUrl());
    } catch (e) {
      scheduleReconnect();
      return;
    }
    S.ws = ws;
    ws.onopen = () => {
      if (S.ws !== ws) return;
      ws.send(JSON.stringify({ type: 'hello', init_data: INIT_DATA, table: TABLE }));
      setConn('connected');
    };
    ws.onmessage = (ev) => {
      if (S.ws !== ws) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      onFrame(msg, ws);
    };
    ws.onclose = () => {
      if (S.ws !== ws) return;
      S.ws = null;
      scheduleReconnect();
    };
  }

  function scheduleReconnect() {
    if (S.stopped || S.retryTimer) return;
    const offline = navigator.onLine === false || S.attempts >= 4;
    setConn(offline ? 'offline' : 'reconnecting');
    // 0.5 s, 1 s, 2 s, 4 s, then 5 s; each with ±20 % jitter, never over 5 s
    const base = Math.min(5000, 500 * 2 ** S.attempts);
    const delay = Math.min(5000, Math.max(400, base * (0.8 + 0.4 * Math.random())));
    S.attempts += 1;
    S.retryTimer = setTimeout(() => { S.retryTimer = null; connect(); }, delay);
  }

  /** Back in front (activated, visible, online): reconnect now, or ask for the news. */
  function resume() {
    if (S.stopped) return;
    const ws = S.ws;
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify({ type: 'resync' }));
    } else if (!ws || ws.readyState !== WebSocket.CONNECTING) {
      connect();
    }
  }

  function onFrame(msg, ws) {
    if (msg.type === 'snapshot') {
      S.attempts = 0;
      if (S.conn !== 'connected') setConn('connected');
      accept(msg, false);
    } else if (msg.type === 'closed') {
      S.attempts = 0;
      if (S.conn !== 'connected') setConn('connected');
      showClosed(esc(msg.text || ''));
    } else if (msg.type === 'error') {
      showFatal(msg.text || msg.code || 'Error');
      if (STOP_CODES.has(msg.code)) {
        S.stopped = true;
        clearTimeout(S.retryTimer);
        S.retryTimer = null;
        S.ws = null;
        try { ws.close(); } catch (e) { /* already closed */ }
      }
    }
  }

  // --- actions ---------------------------------------------------------------------------

  function newKey() {
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
    const bytes = new Uint8Array(22);
    crypto.getRandomValues(bytes);
    let key = 'k';
    for (const b of bytes) key += abc[b & 63];
    return key;
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  /** POST an action; a network failure is tried again with the same key (3 tries in all). */
  async function post(body) {
    const json = JSON.stringify(body);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      let res;
      try {
        res = await fetch('api/act', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: 'tma ' + INIT_DATA },
          body: json,
          cache: 'no-store',
        });
      } catch (e) {
        res = null;
      }
      const gateway = res && res.status >= 502 && res.status <= 504;
      if (res && !gateway) {
        try { return await res.json(); } catch (e) { return { ok: false, text: '' }; }
      }
      if (attempt < 3) await sleep(400 * attempt);
    }
    return null;
  }

  async function act(action, fields) {
    if (S.pending || !S.snap) return;
    haptic('impact', 'light');
    const snap = S.snap;
    const body = Object.assign({
      table: TABLE, kind: action.kind, coup: snap.table.coup, decision: snap.decision,
      amount: null, choice: null, cards: null,
    }, fields || {}, { key: newKey() });
    setPending(true);
    let answer;
    try {
      answer = await post(body);
    } finally {
      setPending(false);
    }
    if (!answer) {
      haptic('notify', 'error');
      toast(esc(t('network_error')), true);
      return;
    }
    if (answer.snapshot) accept(answer.snapshot, true);
    if (answer.code === 'no_table') {
      showClosed(esc(answer.text || ''));
    } else if (answer.ok === false) {
      haptic('notify', 'error');
      toast(answer.text || esc(t('network_error')), true);
    } else if (answer.text) {
      toast(answer.text, false);
    }
  }

  /** The table is closed (a `closed` frame, or an action refused for want of a table): its
   * closing text, no table, no action; the socket stays open, and the chat's next table
   * shows as soon as it is opened (its first snapshot is taken whatever its version). */
  function showClosed(html) {
    S.snap = null;
    S.deadlineAt = null;
    S.deadlineKey = null;
    S.actionsSig = '';
    S.picked = new Set();
    S.pickedSig = '';
    $('actions').replaceChildren();
    $('hand').replaceChildren();
    $('main').hidden = true;
    $('splash').hidden = true;
    document.body.dataset.version = 'closed';
    tick();
    showFatal(html);
  }

  function setPending(on) {
    S.pending = on;
    document.body.classList.toggle('pending', on);
    for (const b of document.querySelectorAll('#actions button, #actions input, #hand button')) {
      b.disabled = on;
    }
  }

  // --- toasts, the error screen, the log --------------------------------------------------

  function toast(html, error) {
    const box = $('toasts');
    const el = document.createElement('div');
    el.className = 'toast' + (error ? ' err' : '');
    el.setAttribute('role', error ? 'alert' : 'status');
    setHtml(el, html);
    box.appendChild(el);
    while (box.children.length > 3) box.firstChild.remove();
    setTimeout(() => el.remove(), error ? 4000 : 1600);
  }

  function showFatal(html) {
    setHtml($('fatal-text'), html);
    $('fatal-close').textContent = t('close');
    $('fatal').hidden = false;
  }
  function hideFatal() { $('fatal').hidden = true; }

  function sheetBack() { closeLog(); }

  function openLog() {
    renderLog();
    $('scrim').hidden = false;
    $('sheet').hidden = false;
    requestAnimationFrame(() => {
      document.body.classList.add('sheet-open');
      const log = $('log');
      log.scrollTop = log.scrollHeight;
      $('log-close').focus();
    });
    tg((w) => { w.BackButton.onClick(sheetBack); w.BackButton.show(); });
  }

  function closeLog() {
    document.body.classList.remove('sheet-open');
    $('scrim').hidden = true;
    $('sheet').hidden = true;
    tg((w) => { w.BackButton.offClick(sheetBack); w.BackButton.hide(); });
    $('log-open').focus();
  }

  function renderLog() {
    const list = $('log');
    list.replaceChildren();
    const lines = (S.snap && S.snap.table.log) || [];
    if (!lines.length) {
      const li = document.createElement('li');
      li.className = 'empty';
      li.textContent = t('log_empty');
      list.appendChild(li);
    }
    for (const line of lines) {
      const li = document.createElement('li');
      setHtml(li, line);
      list.appendChild(li);
    }
  }

  // --- drawing ----------------------------------------------------------------------------

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function num(n) { return n == null ? '' : String(n); }

  function ringSvg(cls) {
    // a countdown ring: r=15.9155 makes the circumference 100, so the dash is a percentage
    return `<svg class="${cls}" viewBox="0 0 36 36" aria-hidden="true">`
      + '<circle class="ring-bg" cx="18" cy="18" r="15.9155"/>'
      + '<circle class="ring-fg" cx="18" cy="18" r="15.9155" pathLength="100"/></svg>';
  }

  function myId() { return S.snap && S.snap.me ? S.snap.me.id : null; }

  function render() {
    const snap = S.snap;
    const tb = snap.table;
    document.documentElement.lang = snap.lang || LANG0;
    document.body.dataset.game = tb.game || '';
    document.body.dataset.version = `${snap.version}.${snap.rev}`;
    $('splash').hidden = true;
    $('main').hidden = false;
    setHtml($('title'), tb.title || esc(t('table')));
    setConn(S.conn);
    $('log-open').querySelector('span').textContent = t('log');
    $('stats-open').setAttribute('aria-label', t('standings'));
    $('sheet-title').textContent = t('log');
    $('log-close').setAttribute('aria-label', t('close'));

    renderCenter(tb);
    renderSeats(tb);
    renderRecent(tb);
    renderResult(tb);
    renderMine(snap);
    renderActions(snap);
    if (!$('sheet').hidden) renderLog();
    tick();

    const mine = myId() != null && (tb.awaiting || []).includes(myId());
    if (mine) {
      if (S.seenFirst && S.turnDecision !== snap.decision) haptic('notify', 'success');
      S.turnDecision = snap.decision;
    } else {
      S.turnDecision = null;
    }
    S.seenFirst = true;
  }

  function namesOf(tb, ids) {
    return ids.map((id) => {
      if (id === myId()) return esc(t('you'));
      const seat = (tb.seats || []).find((s) => s.player === id);
      return seat ? seat.name : '';
    }).filter(Boolean);
  }

  function renderCenter(tb) {
    setHtml($('game'), tb.game_name || '');
    const coup = $('coup');
    coup.replaceChildren();
    if (tb.coup) coup.appendChild(el('span', 'coup-no', t('coup', { n: tb.coup })));
    if (tb.phase) {
      if (coup.children.length) coup.append(' · ');
      const ph = el('span', 'phase');
      setHtml(ph, tb.phase);
      coup.appendChild(ph);
    }
    const money = $('money');
    money.replaceChildren();
    for (const [key, value] of [['bank', tb.bank], ['pot', tb.pot]]) {
      if (!value) continue;
      const m = el('span', `m m-${key}`);
      m.appendChild(el('span', 'm-label', t(key)));
      m.appendChild(el('span', 'm-value', num(value)));
      money.appendChild(m);
    }
    renderFacts($('facts'), tb.facts);
    const line = $('turnline');
    line.replaceChildren();
    const awaiting = tb.awaiting || [];
    if (awaiting.length) {
      const who = el('span', 'who');
      if (awaiting.includes(myId())) {
        who.textContent = t('your_turn');
        line.classList.add('mine');
      } else {
        setHtml(who, tHtml('waiting_for', { names: namesOf(tb, awaiting).join(', ') }));
        line.classList.remove('mine');
      }
      line.appendChild(who);
      if (tb.deadline != null) line.appendChild(el('span', 'secs'));
    }
  }

  // Seats on an ellipse, clockwise from the bottom, the viewer's own seat at the bottom.
  function seatSpots(n, meIndex) {
    const spots = [];
    const start = meIndex >= 0 ? meIndex : 0;
    const shift = meIndex >= 0 ? 0 : 0.5; // a spectator: nobody at the very bottom
    for (let k = 0; k < n; k += 1) {
      const i = (start + k) % n;
      const a = Math.PI / 2 + ((k + shift) * 2 * Math.PI) / n;
      spots[i] = { x: Math.cos(a), y: Math.sin(a) };
    }
    return spots;
  }

  const RECENT = 3; // the coup's last lines shown, as many as the group's table message
  const EDGE = 4; // px kept between a seat and the table's edge
  const BESIDE = 0.35; // a seat this near the felt's middle row sits beside its words
  const RX = 37; // the ellipse the plates sit on, in % of the table area
  const RY = 43;

  function renderSeats(tb) {
    const seats = tb.seats || [];
    const box = $('seats');
    box.replaceChildren();
    box.dataset.count = String(seats.length);
    $('table-area').classList.toggle('crowded', seats.length >= 7);
    const meIndex = seats.findIndex((s) => s.me || (myId() != null && s.player === myId()));
    const spots = seatSpots(seats.length, meIndex);
    $('table-area').classList.toggle('beside', spots.some((p) => Math.abs(p.y) < BESIDE));
    const awaiting = new Set(tb.awaiting || []);
    seats.forEach((s, i) => {
      const spot = spots[i];
      const seat = el('div', 'seat');
      seat.dataset.player = String(s.player);
      if (i === meIndex) seat.classList.add('me');
      if (awaiting.has(s.player)) seat.classList.add('awaiting');
      if (s.turn) seat.classList.add('turn');
      seat.classList.add(spot.y < -0.2 ? 'top' : 'bottom');
      if (spot.x > 0.3) seat.classList.add('right');
      seat.style.left = `${50 + RX * spot.x}%`;
      seat.style.top = `${50 + RY * spot.y}%`;

      const plate = el('div', 'plate');
      const avatar = el('div', 'avatar');
      avatar.innerHTML = ringSvg('ring');
      avatar.appendChild(el('span', 'initial', (plainOf(s.name).trim()[0] || '?').toUpperCase()));
      const who = el('div', 'who');
      const name = el('div', 'name');
      setHtml(name, s.name);
      who.append(name, el('div', 'stack', num(s.stack)));
      plate.append(avatar, who);
      if (s.role) {
        const badge = el('span', 'badge');
        setHtml(badge, s.role);
        plate.appendChild(badge);
      }

      const cards = el('div', 'seat-cards');
      for (const c of s.face_up || []) cards.appendChild(cardEl(c, 'small'));
      for (let k = 0; k < (s.face_down || 0); k += 1) cards.appendChild(cardEl('', 'small'));

      // toward the felt: his status by his name, then his cards with his stake beside them
      const row = el('div', 'seat-row');
      if (cards.children.length) row.appendChild(cards);
      if (s.stake) {
        const stake = el('span', 'stake');
        stake.appendChild(el('i', 'chip'));
        stake.appendChild(el('span', 'stake-value', num(s.stake)));
        row.appendChild(stake);
      }
      seat.appendChild(plate);
      if (s.status) {
        const st = el('span', 'status');
        setHtml(st, s.status);
        seat.appendChild(st);
      }
      if (row.children.length) seat.appendChild(row);
      box.appendChild(seat);
    });
    keepOnScreen(box);
  }

  /** A seat as wide as its name and role, centred on its spot, may reach past the table's
   * edge: moved in just enough to show whole. */
  function keepOnScreen(box) {
    const area = box.getBoundingClientRect();
    for (const seat of box.children) {
      const r = seat.getBoundingClientRect();
      const shift = Math.max(0, area.left + EDGE - r.left) - Math.max(0, r.right - area.right + EDGE);
      if (shift) seat.style.left = `calc(${seat.style.left} + ${shift}px)`;
    }
  }

  /** The coup's last lines, as the group's table message shows them above its log. */
  function renderRecent(tb) {
    const list = $('recent');
    list.replaceChildren();
    for (const line of (tb.log || []).slice(-RECENT)) {
      const li = el('li', 'recent-line');
      setHtml(li, line);
      list.appendChild(li);
    }
  }

  /** The last settled coup, under its number: its headline, the hands shown, every net.
   * Open until the next coup has a decision; then folded to its headline below the live
   * table, the viewer's cards and buttons (the next coup's clock is never under it),
   * unless the viewer opened it himself. */
  function renderResult(tb) {
    const section = $('result');
    const r = tb.result;
    section.hidden = !r;
    if (!r) return;
    const later = Number(tb.coup) > Number(r.coup) && (tb.awaiting || []).length > 0;
    const chosen = S.resultChoice && S.resultChoice.coup === r.coup ? S.resultChoice : null;
    section.classList.toggle('later', later);
    $('result-box').open = chosen ? chosen.open : !later;
    $('result-title').textContent = `${t('result')} \u00b7 ${t('coup', { n: r.coup })}`;
    setHtml($('result-headline'), r.headline || '');
    const hands = $('hands');
    hands.replaceChildren();
    for (const line of r.hands || []) {
      const li = el('li', 'hand-line');
      setHtml(li, line);
      hands.appendChild(li);
    }
    const nets = $('nets');
    nets.replaceChildren();
    for (const n of r.nets || []) {
      const li = el('li', 'net');
      const name = el('span', 'net-name');
      setHtml(name, n.name);
      const v = Number(n.net) || 0;
      const value = el('span', 'net-value ' + (v > 0 ? 'plus' : v < 0 ? 'minus' : 'zero'),
        v > 0 ? `+${v}` : v < 0 ? `\u2212${-v}` : '0');
      li.append(name, value);
      nets.appendChild(li);
    }
    // the achievements its players reached with it, one line each, as the group's table
    const earned = $('earned');
    earned.replaceChildren();
    for (const line of r.earned || []) {
      const li = el('li', 'earned-line');
      setHtml(li, line);
      earned.appendChild(li);
    }
  }

  // "label: text" lines (the table's public facts, or the viewer's own)
  function renderFacts(list, facts) {
    list.replaceChildren();
    for (const f of facts || []) {
      const li = el('li', 'fact');
      const label = el('span', 'fact-label');
      setHtml(label, f.label);
      const text = el('span', 'fact-text');
      setHtml(text, f.text);
      li.append(label, ': ', text);
      list.appendChild(li);
    }
  }

  function ownCardsAction(snap) {
    return (snap.actions || []).find((a) => a.input === 'own_cards') || null;
  }

  function renderMine(snap) {
    const me = snap.me || {};
    const cards = me.cards || [];
    const section = $('mine');
    renderFacts($('mine-facts'), me.facts);
    const hand = $('hand');
    hand.replaceChildren();
    const pick = ownCardsAction(snap);
    const sig = JSON.stringify([snap.decision, cards, pick && pick.kind]);
    if (sig !== S.pickedSig) { S.picked = new Set(); S.pickedSig = sig; }
    const spectator = !me.seated && !cards.length;
    const awaited = (snap.table.awaiting || []).includes(myId());
    section.classList.toggle('spectator', spectator);
    const label = $('mine-label');
    label.replaceChildren();
    label.className = 'mine-label';
    if (awaited) {
      // his turn, where his eyes are: by his cards and buttons, with the clock
      label.className = 'yourturn';
      const ring = el('span', 'yt-ring');
      ring.innerHTML = ringSvg('ring');
      ring.appendChild(el('span', 'secs'));
      if (snap.table.deadline == null) ring.hidden = true;
      label.append(ring, el('span', 'yt-text', t('your_turn')));
    } else if (spectator) {
      label.textContent = t('spectator');
    } else if (cards.length) {
      label.textContent = t('your_cards');
    }
    section.hidden = !awaited && !spectator && !cards.length && !(me.facts || []).length;
    cards.forEach((c, i) => {
      const card = cardEl(c, 'big', pick ? 'button' : 'div');
      if (pick) {
        card.classList.add('pickable');
        card.setAttribute('aria-pressed', S.picked.has(i) ? 'true' : 'false');
        card.disabled = S.pending;
        card.addEventListener('click', () => togglePick(i, pick));
      }
      hand.appendChild(card);
    });
    hand.classList.toggle('many', cards.length > 5);
  }

  function togglePick(i, action) {
    const limit = action.pick == null ? Infinity : Number(action.pick);
    if (S.picked.has(i)) S.picked.delete(i);
    else if (S.picked.size < limit) S.picked.add(i);
    else { haptic('notify', 'warning'); return; }
    haptic('select');
    for (const [k, b] of Array.from($('hand').children).entries()) {
      b.setAttribute('aria-pressed', S.picked.has(k) ? 'true' : 'false');
    }
    updatePickButton(action);
  }

  function pickMask(action) {
    const cards = (S.snap.me && S.snap.me.cards) || [];
    const choices = action.choices && action.choices.length
      ? action.choices.map(choiceLabel) : cards;
    let mask = 0;
    for (const i of S.picked) {
      const at = choices.indexOf(cards[i]);
      if (at >= 0) mask += 2 ** at;
    }
    return mask;
  }

  function updatePickButton(action) {
    const b = document.querySelector('#actions .pick-confirm');
    if (!b) return;
    b.querySelector('.count').textContent = String(S.picked.size);
    const lo = action.min == null ? 0 : Number(action.min);
    b.dataset.ok = S.picked.size >= lo ? '1' : '0';
  }

  function button(html, cls, onClick) {
    const b = el('button', cls);
    b.type = 'button';
    setHtml(b, html);
    b.disabled = S.pending;
    b.addEventListener('click', onClick);
    return b;
  }

  /** A choice's label: the server sends {index, label} (a bare string is its own label). */
  function choiceLabel(c) {
    return c && typeof c === 'object' ? String(c.label) : String(c);
  }

  function clamp(v, lo, hi) {
    let x = Math.round(Number(v));
    if (!Number.isFinite(x)) x = lo;
    return Math.min(hi, Math.max(lo, x));
  }

  function amountPanel(a) {
    const lo = a.min == null ? 0 : Number(a.min);
    const hi = a.max == null ? Math.max(lo, ...(a.presets || [lo])) : Number(a.max);
    const presets = (a.presets || []).filter((p) => p >= lo && p <= hi);
    if (!(a.kind in S.amounts)) S.amounts[a.kind] = presets.length ? presets[0] : lo;
    const choices = a.choices || [];
    if (choices.length && !(a.kind in S.amountChoice)) S.amountChoice[a.kind] = 0;

    const panel = el('div', 'panel amount');
    panel.dataset.kind = a.kind;
    const head = el('div', 'panel-head');
    const label = el('span', 'panel-label');
    setHtml(label, a.label);
    head.append(label, el('span', 'range', `${lo}\u2013${hi}`));
    panel.appendChild(head);

    if (choices.length) {
      const seg = el('div', 'segment');
      choices.forEach((c, i) => {
        const on = S.amountChoice[a.kind] === i ? ' on' : '';
        const b = button(choiceLabel(c), 'seg' + on, () => {
          S.amountChoice[a.kind] = i;
          haptic('select');
          for (const [k, x] of Array.from(seg.children).entries()) x.classList.toggle('on', k === i);
        });
        seg.appendChild(b);
      });
      panel.appendChild(seg);
    }

    const chips = el('div', 'presets');
    const range = el('input', 'slider');
    const field = el('input', 'field');
    const confirm = el('button', 'btn primary confirm');
    // the button's label and amount are drawn once and the amount's text changed in place:
    // the field's change comes on the very tap that leaves it for this button, and a node
    // replaced between that tap's press and release takes its click away
    // its words around the amount as the chat's buttons have them ("Raise to {amount}")
    const [before, after] = (a.confirm || `${a.label} {amount}`).split('{amount}');
    const confirmLabel = el('span');
    setHtml(confirmLabel, before || '');
    const confirmAmount = el('span', 'confirm-amount');
    const confirmAfter = el('span');
    setHtml(confirmAfter, after || '');
    confirm.append(confirmLabel, confirmAmount, confirmAfter);
    const sync = (v, from) => {
      S.amounts[a.kind] = v;
      if (from !== range) range.value = String(v);
      if (from !== field) field.value = String(v);
      range.style.setProperty('--fill', hi > lo ? `${((v - lo) * 100) / (hi - lo)}%` : '100%');
      for (const c of chips.children) c.classList.toggle('on', Number(c.dataset.amount) === v);
      confirmAmount.textContent = String(v);
    };
    for (const p of presets) {
      const c = el('button', 'preset', String(p));
      c.type = 'button';
      c.dataset.amount = String(p);
      c.disabled = S.pending;
      c.addEventListener('click', () => { haptic('select'); sync(p); });
      chips.appendChild(c);
    }
    range.type = 'range';
    range.min = String(lo);
    range.max = String(hi);
    range.step = '1';
    range.setAttribute('aria-label', t('amount'));
    range.disabled = S.pending;
    range.addEventListener('input', () => sync(clamp(range.value, lo, hi), range));
    field.type = 'number';
    field.inputMode = 'numeric';
    field.enterKeyHint = 'go';
    field.min = String(lo);
    field.max = String(hi);
    field.step = '1';
    field.setAttribute('aria-label', t('amount'));
    field.disabled = S.pending;
    field.addEventListener('input', () => {
      if (field.value === '') return;
      const v = clamp(field.value, lo, hi);
      sync(v, Number(field.value) === v ? field : null);
    });
    field.addEventListener('change', () => sync(clamp(field.value, lo, hi)));
    // Enter takes the amount typed, as the button does (a phone's keyboard "Go" too)
    field.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || e.isComposing) return;
      e.preventDefault();
      if (!confirm.disabled) confirm.click();
    });
    chips.appendChild(field);
    panel.append(chips, range);

    confirm.type = 'button';
    confirm.disabled = S.pending;
    confirm.addEventListener('click', () => {
      const v = clamp(field.value === '' ? S.amounts[a.kind] : field.value, lo, hi);
      sync(v);
      act(a, { amount: v, choice: choices.length ? S.amountChoice[a.kind] : null });
    });
    panel.appendChild(confirm);
    sync(clamp(S.amounts[a.kind], lo, hi));
    return { panel, confirm };
  }

  function choicePanel(a) {
    const panel = el('div', 'panel choice');
    panel.dataset.kind = a.kind;
    const head = el('div', 'panel-head');
    const label = el('span', 'panel-label');
    setHtml(label, a.label);
    head.appendChild(label);
    panel.appendChild(head);
    const row = el('div', 'choices');
    (a.choices || []).forEach((c, i) => {
      row.appendChild(button(choiceLabel(c), 'btn', () => act(a, { choice: i })));
    });
    panel.appendChild(row);
    return panel;
  }

  function pickPanel(a) {
    const panel = el('div', 'panel pick');
    panel.dataset.kind = a.kind;
    const limit = a.pick == null ? (a.choices || []).length : a.pick;
    panel.appendChild(el('div', 'pick-hint', t('pick_cards', { n: limit })));
    const b = el('button', 'btn primary pick-confirm');
    b.type = 'button';
    b.disabled = S.pending;
    const label = el('span');
    setHtml(label, a.label || esc(t('confirm')));
    b.append(label, el('span', 'count', String(S.picked.size)));
    b.addEventListener('click', () => {
      const lo = a.min == null ? 0 : Number(a.min);
      if (S.picked.size < lo) { haptic('notify', 'error'); return; }
      act(a, { cards: pickMask(a) });
    });
    panel.appendChild(b);
    return panel;
  }

  function renderActions(snap) {
    const actions = snap.actions || [];
    const sig = JSON.stringify([snap.decision, actions, (snap.me || {}).cards, snap.lang, snap.ui,
      !!snap.table.result, (snap.table.awaiting || []).includes(myId())]);
    if (sig === S.actionsSig) return;
    if (snap.decision !== S.amountsDecision) {
      S.amounts = {};
      S.amountChoice = {};
      S.amountsDecision = snap.decision;
    }
    S.actionsSig = sig;
    const box = $('actions');
    box.replaceChildren();
    const quick = el('div', 'quick');
    const small = el('div', 'utility');
    // an amount, or an amount taken one of several ways (banchok's stake: choices and bounds)
    const isAmount = (a) => a.input === 'amount' || (a.input === 'choice' && a.min != null
      && a.max != null && (a.choices || []).length > 0);
    const amounts = actions.filter(isAmount);
    let lastButton = null;
    for (const a of actions) {
      if (isAmount(a)) {
        const { panel, confirm } = amountPanel(a);
        box.appendChild(panel);
        // one amount to give: its button joins the row of the others, last (the thumb's)
        if (amounts.length === 1) lastButton = confirm;
      } else if (a.input === 'choice') {
        box.appendChild(choicePanel(a));
      } else if (a.input === 'own_cards') {
        box.appendChild(pickPanel(a));
      } else if (a.input === 'utility') {
        const b = button(a.label, `link kind-${a.kind}`, () => act(a));
        b.dataset.kind = a.kind;
        small.appendChild(b);
      } else {
        // a plain press, worded as the chat's button ("Call 2", "Banco! 250"), in its order
        const b = button(a.label, `btn plain kind-${a.kind}`, () => act(a));
        b.dataset.kind = a.kind;
        quick.appendChild(b);
      }
    }
    if (lastButton) quick.appendChild(lastButton);
    if (quick.children.length) box.appendChild(quick);
    if (small.children.length) box.appendChild(small);
    box.hidden = !box.children.length;
  }

  // --- the clock --------------------------------------------------------------------------

  function tick() {
    const running = S.deadlineAt != null;
    document.body.classList.toggle('clock', running);
    if (!running) return;
    const left = Math.max(0, S.deadlineAt - nowSec());
    const frac = S.deadlineTotal > 0 ? Math.min(1, left / S.deadlineTotal) : 0;
    // three digits would not fit the ring: the number alone
    const secs = left > 99 ? String(Math.ceil(left)) : t('seconds', { n: Math.ceil(left) });
    for (const fg of document.querySelectorAll('.ring-fg')) {
      fg.style.strokeDashoffset = String(100 - frac * 100);
    }
    for (const s of document.querySelectorAll('.secs')) s.textContent = secs;
    document.body.classList.toggle('hurry', left <= 5);
  }
  setInterval(tick, 250);

  // --- wiring -----------------------------------------------------------------------------

  function applyScheme() {
    const scheme = tg((w) => w.colorScheme)
      || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    document.documentElement.dataset.scheme = scheme;
  }
  applyScheme();
  tg((w) => w.onEvent('themeChanged', applyScheme));

  $('result-box').querySelector('summary').addEventListener('click', () => {
    const r = S.snap && S.snap.table.result;
    if (r) S.resultChoice = { coup: r.coup, open: !$('result-box').open };
  });
  // the chat's standings and the player's profile (stats.html), back to here after
  $('stats-open').href = '?page=standings&from=table'
    + (TABLE ? '&table=' + encodeURIComponent(TABLE) : '');
  $('log-open').addEventListener('click', () => { haptic('impact', 'light'); openLog(); });
  $('log-close').addEventListener('click', closeLog);
  $('scrim').addEventListener('click', closeLog);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !$('sheet').hidden) closeLog();
  });
  $('fatal-close').addEventListener('click', () => {
    if (!tg((w) => { w.close(); return true; })) hideFatal();
  });

  tg((w) => w.onEvent('activated', resume));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') resume();
  });
  window.addEventListener('online', resume);
  window.addEventListener('offline', () => { if (!S.ws) setConn('offline'); });

  // read-only peek for tests and debugging
  window.banco = Object.freeze({
    get state() {
      return {
        conn: S.conn, stopped: S.stopped, pending: S.pending,
        version: S.snap ? S.snap.version : null, rev: S.snap ? S.snap.rev : null,
        retrying: S.retryTimer != null, open: !!S.ws,
      };
    },
  });

  setConn('connecting');
  connect();
}());
