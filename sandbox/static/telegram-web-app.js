// A stand-in for Telegram's telegram-web-app.js, written for Banco's sandbox and tests only:
// production pages load Telegram's own script (WEBAPP_SDK_URL). It implements the subset of
// window.Telegram.WebApp the table's page uses, the way the real script behaves:
//  * launch parameters come from location.hash (tgWebAppData, tgWebAppVersion,
//    tgWebAppPlatform, tgWebAppThemeParams) and are kept in sessionStorage across reloads;
//    initData is tgWebAppData decoded exactly once, initDataUnsafe its parsed fields;
//  * events to the client are posted to the parent frame as JSON strings
//    {eventType, eventData} (the sandbox page's Mini App panel is that parent);
//  * events from the client arrive as such messages from the parent, or through
//    Telegram.WebView.receiveEvent(type, data);
//  * the theme and viewport are mirrored in CSS variables on <html> (--tg-theme-*,
//    --tg-color-scheme, --tg-viewport-*, --tg-safe-area-inset-*, ...).
(function () {
  "use strict";
  if (window.Telegram && window.Telegram.WebApp) return;

  function urlSafeDecode(value) {
    try { return decodeURIComponent(value.replace(/\+/g, "%20")); } catch (e) { return value; }
  }
  function parseQuery(query) {
    const params = {};
    if (!query) return params;
    for (const part of query.split("&")) {
      const at = part.indexOf("=");
      const key = urlSafeDecode(at < 0 ? part : part.slice(0, at));
      params[key] = at < 0 ? null : urlSafeDecode(part.slice(at + 1));
    }
    return params;
  }
  function parseHash(hash) {
    hash = hash.replace(/^#/, "");
    const q = hash.indexOf("?");
    if (hash.indexOf("=") < 0 && q < 0) return hash ? {_path: urlSafeDecode(hash)} : {};
    const params = q >= 0 ? {_path: urlSafeDecode(hash.slice(0, q))} : {};
    return Object.assign(params, parseQuery(q >= 0 ? hash.slice(q + 1) : hash));
  }

  // --- launch parameters ----------------------------------------------------------------
  const STORE = "__telegram__initParams";
  let initParams = parseHash(location.hash);
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORE) || "null");
    if (stored) for (const key in stored) if (initParams[key] === undefined) initParams[key] = stored[key];
    sessionStorage.setItem(STORE, JSON.stringify(initParams));
  } catch (e) { /* storage unavailable */ }

  const isIframe = window.parent != null && window.parent !== window;
  const eventHandlers = {};

  function postEvent(eventType, eventData) {
    const payload = JSON.stringify({eventType, eventData: eventData === undefined ? "" : eventData});
    if (window.TelegramWebviewProxy !== undefined) window.TelegramWebviewProxy.postEvent(eventType, JSON.stringify(eventData));
    else if (isIframe) window.parent.postMessage(payload, "*");
    else console.log("[Telegram.WebView] postEvent (no client)", eventType, eventData);
  }
  function receiveEvent(eventType, eventData) {
    for (const cb of (eventHandlers[eventType] || []).slice()) {
      try { cb(eventType, eventData); } catch (e) { setTimeout(() => { throw e; }, 0); }
    }
  }
  function onWebViewEvent(eventType, cb) { (eventHandlers[eventType] = eventHandlers[eventType] || []).push(cb); }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    let data;
    try { data = JSON.parse(event.data); } catch (e) { return; }
    if (!data || !data.eventType) return;
    if (data.eventType === "reload_iframe") { location.reload(); return; }
    receiveEvent(data.eventType, data.eventData);
  });

  window.Telegram = window.Telegram || {};
  window.Telegram.WebView = {initParams, isIframe, postEvent, receiveEvent, onEvent: onWebViewEvent};

  // --- WebApp -----------------------------------------------------------------------------
  const WebApp = {};
  const appHandlers = {};
  const initData = initParams.tgWebAppData || "";
  const initDataUnsafe = {};
  if (initData) {
    const fields = parseQuery(initData);
    for (const key in fields) {
      const val = fields[key];
      try {
        if (val && ((val[0] === "{" && val.slice(-1) === "}") || (val[0] === "[" && val.slice(-1) === "]"))) fields[key] = JSON.parse(val);
      } catch (e) { /* left as text, as the real script does */ }
      initDataUnsafe[key] = fields[key];
    }
  }
  let themeParams = {};
  try { themeParams = JSON.parse(initParams.tgWebAppThemeParams || "{}") || {}; } catch (e) { /* none */ }
  let colorScheme = "light";
  let viewportHeight = window.innerHeight, viewportStableHeight = window.innerHeight, isExpanded = true;
  let safeAreaInset = {top: 0, bottom: 0, left: 0, right: 0};
  let contentSafeAreaInset = {top: 0, bottom: 0, left: 0, right: 0};
  let isActive = true, isClosingConfirmationEnabled = false;
  const version = initParams.tgWebAppVersion || "6.0";

  function emit(name, params) {
    for (const cb of (appHandlers[name] || []).slice()) {
      try { cb.call(WebApp, params); } catch (e) { setTimeout(() => { throw e; }, 0); }
    }
  }
  function cssVar(name, value) { document.documentElement.style.setProperty(name, value); }
  function parseColor(color) {
    const hex = String(color || "").trim().toLowerCase().replace(/^#/, "");
    const full = hex.length === 3 ? hex.split("").map((c) => c + c).join("") : hex;
    if (!/^[0-9a-f]{6}$/.test(full)) return null;
    return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  }
  function isColorDark(rgb) {  // the real script's perceived brightness test
    return Math.sqrt(0.299 * rgb[0] * rgb[0] + 0.587 * rgb[1] * rgb[1] + 0.114 * rgb[2] * rgb[2]) < 120;
  }
  function setThemeParams(params) {
    themeParams = {};
    for (const key in params || {}) {
      const rgb = parseColor(params[key]);
      if (!rgb) continue;
      const value = "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");
      themeParams[key] = value;
      cssVar("--tg-theme-" + key.split("_").join("-"), value);
    }
    const bg = parseColor(themeParams.bg_color);
    colorScheme = bg && isColorDark(bg) ? "dark" : "light";
    cssVar("--tg-color-scheme", colorScheme);
  }
  function setViewport(data) {
    if (data && data.height !== undefined) {
      viewportHeight = Number(data.height);
      isExpanded = !!data.is_expanded;
      if (data.is_state_stable) viewportStableHeight = viewportHeight;
    } else {
      viewportHeight = viewportStableHeight = window.innerHeight;
    }
    cssVar("--tg-viewport-height", viewportHeight + "px");
    cssVar("--tg-viewport-stable-height", viewportStableHeight + "px");
  }
  function setInsets(prefix, inset, data) {
    for (const side of ["top", "bottom", "left", "right"]) {
      inset[side] = Math.max(0, Number((data || {})[side]) || 0);
      cssVar(`--tg-${prefix}-inset-${side}`, inset[side] + "px");
    }
  }
  function versionAtLeast(ver) {
    const a = String(version).split("."), b = String(ver).split(".");
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = parseInt(a[i], 10) || 0, y = parseInt(b[i], 10) || 0;
      if (x !== y) return x > y;
    }
    return true;
  }

  Object.defineProperties(WebApp, {
    initData: {get: () => initData, enumerable: true},
    initDataUnsafe: {get: () => initDataUnsafe, enumerable: true},
    version: {get: () => version, enumerable: true},
    platform: {get: () => initParams.tgWebAppPlatform || "unknown", enumerable: true},
    colorScheme: {get: () => colorScheme, enumerable: true},
    themeParams: {get: () => Object.assign({}, themeParams), enumerable: true},
    isExpanded: {get: () => isExpanded, enumerable: true},
    viewportHeight: {get: () => viewportHeight, enumerable: true},
    viewportStableHeight: {get: () => viewportStableHeight, enumerable: true},
    safeAreaInset: {get: () => Object.assign({}, safeAreaInset), enumerable: true},
    contentSafeAreaInset: {get: () => Object.assign({}, contentSafeAreaInset), enumerable: true},
    isActive: {get: () => isActive, enumerable: true},
    isClosingConfirmationEnabled: {get: () => isClosingConfirmationEnabled, enumerable: true},
  });
  WebApp.isVersionAtLeast = versionAtLeast;
  WebApp.onEvent = (name, cb) => { if (typeof cb === "function") (appHandlers[name] = appHandlers[name] || []).push(cb); };
  WebApp.offEvent = (name, cb) => {
    const list = appHandlers[name] || [];
    const at = list.indexOf(cb);
    if (at >= 0) list.splice(at, 1);
  };
  WebApp.ready = () => postEvent("web_app_ready");
  WebApp.expand = () => postEvent("web_app_expand");
  WebApp.close = (options) => postEvent("web_app_close", options && options.return_back ? {return_back: true} : {});
  WebApp.setHeaderColor = (color) => {
    if (color === "bg_color" || color === "secondary_bg_color") postEvent("web_app_set_header_color", {color_key: color});
    else postEvent("web_app_set_header_color", {color: color});
  };
  WebApp.setBackgroundColor = (color) => postEvent("web_app_set_background_color", {color: themeParams[color] || color});
  WebApp.enableClosingConfirmation = () => {
    isClosingConfirmationEnabled = true;
    postEvent("web_app_setup_closing_behavior", {need_confirmation: true});
  };
  WebApp.disableClosingConfirmation = () => {
    isClosingConfirmationEnabled = false;
    postEvent("web_app_setup_closing_behavior", {need_confirmation: false});
  };
  WebApp.openTelegramLink = (url) => {
    const a = document.createElement("a");
    a.href = url;
    if ((a.protocol !== "http:" && a.protocol !== "https:") || a.hostname !== "t.me") throw Error("WebAppTgUrlInvalid");
    postEvent("web_app_open_tg_link", {path_full: a.pathname + a.search});
  };
  function haptic(params) { postEvent("web_app_trigger_haptic_feedback", params); return WebApp.HapticFeedback; }
  WebApp.HapticFeedback = {
    impactOccurred: (style) => haptic({type: "impact", impact_style: style}),
    notificationOccurred: (type) => haptic({type: "notification", notification_type: type}),
    selectionChanged: () => haptic({type: "selection_change"}),
  };

  // MainButton and BackButton: their state, shown to the client by setup events.
  function bottomButton() {
    const b = {text: "Continue", isVisible: false, isActive: true, isProgressVisible: false};
    const send = () => postEvent("web_app_setup_main_button", {is_visible: b.isVisible, is_active: b.isActive,
      text: b.text, is_progress_visible: b.isProgressVisible, color: themeParams.button_color, text_color: themeParams.button_text_color});
    b.setText = (text) => { b.text = String(text); send(); return b; };
    b.show = () => { b.isVisible = true; send(); return b; };
    b.hide = () => { b.isVisible = false; send(); return b; };
    b.enable = () => { b.isActive = true; send(); return b; };
    b.disable = () => { b.isActive = false; send(); return b; };
    b.onClick = (cb) => { WebApp.onEvent("mainButtonClicked", cb); return b; };
    b.offClick = (cb) => { WebApp.offEvent("mainButtonClicked", cb); return b; };
    return b;
  }
  WebApp.MainButton = bottomButton();
  const back = {isVisible: false};
  const sendBack = () => postEvent("web_app_setup_back_button", {is_visible: back.isVisible});
  back.show = () => { back.isVisible = true; sendBack(); return back; };
  back.hide = () => { back.isVisible = false; sendBack(); return back; };
  back.onClick = (cb) => { WebApp.onEvent("backButtonClicked", cb); return back; };
  back.offClick = (cb) => { WebApp.offEvent("backButtonClicked", cb); return back; };
  WebApp.BackButton = back;

  // --- events from the client --------------------------------------------------------------
  onWebViewEvent("theme_changed", (type, data) => { setThemeParams((data || {}).theme_params); emit("themeChanged"); });
  onWebViewEvent("viewport_changed", (type, data) => { setViewport(data); emit("viewportChanged", {isStateStable: !!(data || {}).is_state_stable}); });
  onWebViewEvent("safe_area_changed", (type, data) => { setInsets("safe-area", safeAreaInset, data); emit("safeAreaChanged"); });
  onWebViewEvent("content_safe_area_changed", (type, data) => {
    setInsets("content-safe-area", contentSafeAreaInset, data); emit("contentSafeAreaChanged");
  });
  onWebViewEvent("visibility_changed", (type, data) => {
    isActive = !!(data || {}).is_visible;
    emit(isActive ? "activated" : "deactivated");
  });
  onWebViewEvent("main_button_pressed", () => emit("mainButtonClicked"));
  onWebViewEvent("back_button_pressed", () => emit("backButtonClicked"));

  setThemeParams(themeParams);
  setViewport(null);
  setInsets("safe-area", safeAreaInset, null);
  setInsets("content-safe-area", contentSafeAreaInset, null);
  window.Telegram.WebApp = WebApp;
  if (isIframe) postEvent("iframe_ready", {reload_supported: true});
  postEvent("web_app_request_theme");
  postEvent("web_app_request_viewport");
  postEvent("web_app_request_safe_area");
  postEvent("web_app_request_content_safe_area");
})();
