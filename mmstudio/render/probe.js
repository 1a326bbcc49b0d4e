// The page probe: every box and computed style the checks need, gathered in ONE page.evaluate.
// Coordinates are CSS px in page space (scroll offset added). Returns
// {page, sections, media, texts, overlaps, ids}; see mmstudio/render/model.py for the shapes.
({ maxTexts, scrollLimit }) => {
  const se = document.scrollingElement || document.documentElement;
  const sx = () => window.scrollX;
  const sy = () => window.scrollY;
  const box = (r) => ({ x: r.left + sx(), y: r.top + sy(), w: r.width, h: r.height });
  const rgba = (s) => {
    const m = /rgba?\(([^)]+)\)/.exec(s || '');
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const sel = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 4; e = e.parentElement) {
      let s = e.tagName.toLowerCase();
      const mm = e.getAttribute('data-mm-id');
      if (mm) { parts.unshift(`${s}[data-mm-id="${mm}"]`); break; }
      if (e.id) { parts.unshift(`${s}#${CSS.escape(e.id)}`); break; }
      if (e.classList.length) s += '.' + [...e.classList].slice(0, 2).map(CSS.escape).join('.');
      const p = e.parentElement;
      if (p) {
        const same = [...p.children].filter((c) => c.tagName === e.tagName);
        if (same.length > 1) s += `:nth-of-type(${same.indexOf(e) + 1})`;
      }
      parts.unshift(s);
    }
    return parts.join(' > ');
  };
  const opacityCache = new Map();
  const opacity = (el) => {
    if (!el || el.nodeType !== 1) return 1;
    if (opacityCache.has(el)) return opacityCache.get(el);
    const v = parseFloat(getComputedStyle(el).opacity) * opacity(el.parentElement);
    opacityCache.set(el, v);
    return v;
  };
  const owner = (el) => {
    const o = el.closest('[data-mm-id]');
    return o ? o.getAttribute('data-mm-id') : null;
  };
  const section = (el) => {
    const s = el.closest('[data-mm-section]');
    return s ? s.getAttribute('data-mm-section') : null;
  };

  const hiddenReason = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none') return { cause: 'display', on: sel(e), value: 'none' };
    }
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible') return { cause: 'visibility', on: sel(el), value: cs.visibility };
    if (opacity(el) < 0.05) {
      let on = el;
      for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
        if (parseFloat(getComputedStyle(e).opacity) < 0.05) { on = e; break; }
      }
      return { cause: 'opacity', on: sel(on), value: opacity(el) };
    }
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return { cause: 'zero-size', on: sel(el), value: [r.width, r.height] };
    const b = box(r);
    if (b.x + b.w <= 0 || b.y + b.h <= 0 || b.x >= se.scrollWidth || b.y >= se.scrollHeight) {
      return { cause: 'off-screen', on: sel(el), value: [b.x, b.y] };
    }
    return null;
  };

  const opaqueCover = (hit) => {
    if (opacity(hit) < 0.9) return false;
    if (hit.matches('img, video, canvas, iframe, svg')) return true;
    const bg = rgba(getComputedStyle(hit).backgroundColor);
    return !!bg && bg[3] >= 0.9 || getComputedStyle(hit).backgroundImage !== 'none';
  };
  const covered = (el) => {
    const b = box(el.getBoundingClientRect());
    if (b.w < 2 || b.h < 2) return null;
    const pts = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
    let hits = 0; let by = null;
    for (const [fx, fy] of pts) {
      const px = b.x + b.w * fx; const py = b.y + b.h * fy;
      if (py > scrollLimit) continue;
      window.scrollTo({ top: Math.max(0, py - innerHeight / 2), left: Math.max(0, px - innerWidth / 2), behavior: 'instant' });
      const hit = document.elementFromPoint(px - sx(), py - sy());
      if (!hit || hit === el || el.contains(hit) || hit.contains(el)) continue;
      if (opaqueCover(hit)) { hits += 1; by = by || sel(hit); }
    }
    return { fraction: hits / pts.length, by };
  };

  const canvasDrawn = (c) => {
    try {
      if (!c.width || !c.height) return false;
      const t = document.createElement('canvas'); t.width = 32; t.height = 32;
      const g = t.getContext('2d'); g.drawImage(c, 0, 0, 32, 32);
      const d = g.getImageData(0, 0, 32, 32).data;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true;
      return false;
    } catch (e) { return null; }
  };
  const usesVh = (doc) => {
    let found = false;
    try {
      for (const sh of doc.styleSheets) {
        for (const rule of sh.cssRules) if (/\b\d+(\.\d+)?vh\b/.test(rule.cssText)) found = true;
      }
    } catch (e) { /* unreadable sheet */ }
    doc.querySelectorAll('[style]').forEach((e) => {
      if (/\d+vh/.test(e.getAttribute('style'))) found = true;
    });
    return found;
  };
  const frameInfo = (f) => {
    let doc = null;
    try { doc = f.contentDocument; } catch (e) { doc = null; }
    if (!doc || !doc.documentElement) return { accessible: false };
    const de = doc.documentElement;
    const graphics = [...doc.querySelectorAll('canvas, svg')].filter((g) => !g.closest('svg') || g.tagName.toLowerCase() === 'svg' && !g.parentElement.closest('svg'));
    const drawn = graphics.map((g) => {
      const r = g.getBoundingClientRect();
      return { tag: g.tagName.toLowerCase(), w: r.width, h: r.height, right: r.right, bottom: r.bottom,
        drawn: g.tagName.toLowerCase() === 'canvas' ? canvasDrawn(g) : g.childElementCount > 0 };
    });
    const win = f.contentWindow;
    return {
      accessible: true, url: doc.URL, readyState: doc.readyState,
      loadedAt: win && win.__mmLoadedAt ? win.__mmLoadedAt : null,
      clientW: de.clientWidth, clientH: de.clientHeight, scrollW: de.scrollWidth, scrollH: de.scrollHeight,
      graphics: drawn.slice(0, 20), usesVh: usesVh(doc),
      text: (doc.body ? doc.body.innerText : '').trim().slice(0, 200),
    };
  };
  const videoInfo = (v) => ({
    readyState: v.readyState, networkState: v.networkState, error: v.error ? v.error.code : null,
    currentSrc: v.currentSrc, poster: v.poster, videoW: v.videoWidth, videoH: v.videoHeight,
    autoplay: v.autoplay, muted: v.muted, paused: v.paused,
    sources: [...v.querySelectorAll('source')].map((s) => ({ src: s.src, type: s.type,
      canPlay: s.type ? v.canPlayType(s.type) : '' })),
    src: v.getAttribute('src') ? v.src : '',
  });

  const MEDIA = 'img, video, iframe, canvas, [_echarts_instance_]';
  const mediaOf = (el) => (el.matches(MEDIA) ? el : el.querySelector(MEDIA) || el.querySelector('svg'));
  const claimed = new Map();
  const idsInfo = [];
  for (const el of document.querySelectorAll('[data-mm-id]')) {
    const id = el.getAttribute('data-mm-id');
    const m = mediaOf(el);
    idsInfo.push({ id, tag: el.tagName.toLowerCase(), section: section(el), media: !!m });
    if (m && !claimed.has(m) && ![...claimed.keys()].some((c) => c.contains(m) && c !== m)) {
      claimed.set(m, { id, explicit: true });
    }
  }
  const inClaimed = (el) => [...claimed.keys()].some((c) => c !== el && c.contains(el));
  for (const el of document.querySelectorAll(MEDIA)) {
    if (claimed.has(el) || inClaimed(el) || el.closest('[_echarts_instance_]') && !el.matches('[_echarts_instance_]')) continue;
    const r = el.getBoundingClientRect();
    if (el.tagName === 'CANVAS' && (r.width < 80 || r.height < 60)) continue;
    claimed.set(el, { id: null, explicit: false });
  }
  const media = [];
  for (const [el, info] of claimed) {
    const tag = el.tagName.toLowerCase();
    const cs = getComputedStyle(el);
    const item = {
      id: info.id, explicit: info.explicit, tag, selector: sel(el), section: section(el),
      rect: box(el.getBoundingClientRect()), opacity: opacity(el), hidden: hiddenReason(el),
      objectFit: cs.objectFit, objectPosition: cs.objectPosition,
      src: el.currentSrc || el.src || el.getAttribute('src') || '',
      rawSrc: el.getAttribute('src') || '', alt: el.getAttribute('alt'),
    };
    if (tag === 'img') Object.assign(item, { complete: el.complete, naturalW: el.naturalWidth, naturalH: el.naturalHeight });
    if (tag === 'video') item.video = videoInfo(el);
    if (tag === 'iframe') item.frame = frameInfo(el);
    if (tag === 'canvas') item.drawn = canvasDrawn(el);
    if (el.matches('[_echarts_instance_]')) item.graphics = [...el.querySelectorAll('canvas')].map((c) => ({ tag: 'canvas', w: c.width, h: c.height, drawn: canvasDrawn(c) }));
    media.push(item);
  }
  const y0 = window.scrollY;
  for (const [i, [el]] of [...claimed].entries()) media[i].covered = media[i].hidden ? null : covered(el);
  // covered() scrolls; measure everything below at the page's own scroll position, the one the
  // full-page screenshots are taken at (sticky and fixed boxes move with the scroll)
  window.scrollTo({ top: y0, left: 0, behavior: 'instant' });

  const texts = [];
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OPTION', 'TITLE', 'HEAD']);
  for (const el of document.querySelectorAll('body *')) {
    if (texts.length >= maxTexts) break;
    if (SKIP.has(el.tagName)) continue;
    const nodes = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!nodes.length) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible' || opacity(el) < 0.05) continue;
    const range = document.createRange();
    let tr = null;
    for (const n of nodes) {
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      tr = tr ? { l: Math.min(tr.l, r.left), t: Math.min(tr.t, r.top), r: Math.max(tr.r, r.right), b: Math.max(tr.b, r.bottom) }
        : { l: r.left, t: r.top, r: r.right, b: r.bottom };
    }
    if (!tr) continue;
    const er = el.getBoundingClientRect();
    texts.push({
      selector: sel(el), owner: owner(el), section: section(el), tag: el.tagName.toLowerCase(),
      rect: { x: tr.l + sx(), y: tr.t + sy(), w: tr.r - tr.l, h: tr.b - tr.t }, box: box(er),
      color: rgba(cs.color), opacity: opacity(el), fontSize: parseFloat(cs.fontSize), fontWeight: parseInt(cs.fontWeight, 10) || 400,
      overflowX: cs.overflowX, overflowY: cs.overflowY, display: cs.display, whiteSpace: cs.whiteSpace,
      textOverflow: cs.textOverflow, lineClamp: cs.webkitLineClamp || 'none',
      scrollW: el.scrollWidth, clientW: el.clientWidth, scrollH: el.scrollHeight, clientH: el.clientHeight,
      snippet: nodes.map((n) => n.textContent.trim()).join(' ').slice(0, 60),
      _el: texts.length,
    });
    texts[texts.length - 1]._node = el;
  }
  const overlaps = [];
  for (let i = 0; i < texts.length && overlaps.length < 20; i++) {
    for (let j = i + 1; j < texts.length && overlaps.length < 20; j++) {
      const a = texts[i]; const b = texts[j];
      if (a._node.contains(b._node) || b._node.contains(a._node)) continue;
      const w = Math.min(a.rect.x + a.rect.w, b.rect.x + b.rect.w) - Math.max(a.rect.x, b.rect.x);
      const h = Math.min(a.rect.y + a.rect.h, b.rect.y + b.rect.h) - Math.max(a.rect.y, b.rect.y);
      if (w <= 2 || h <= 2) continue;
      const small = Math.min(a.rect.w * a.rect.h, b.rect.w * b.rect.h);
      if (small > 0 && (w * h) / small > 0.25) overlaps.push({ a: i, b: j, share: (w * h) / small });
    }
  }
  texts.forEach((t) => { delete t._node; delete t._el; });

  const palette = new Map();
  const add = (c, w) => {
    if (!c || c[3] < 0.5 || !(w > 0)) return;
    const k = c.slice(0, 3).join(',');
    palette.set(k, (palette.get(k) || 0) + w);
  };
  let n = 0;
  for (const el of document.querySelectorAll('body, body *')) {
    if (++n > 4000) break;
    const cs = getComputedStyle(el);
    if (cs.display === 'none') continue;
    const r = el.getBoundingClientRect();
    add(rgba(cs.backgroundColor), Math.min(r.width * r.height, se.scrollWidth * 2000));
  }
  for (const t of texts) add(t.color, t.rect.w * t.rect.h * 0.5);

  const sections = [...document.querySelectorAll('[data-mm-section]')].map((s) => ({
    id: s.getAttribute('data-mm-section'), rect: box(s.getBoundingClientRect()),
    ids: [...s.querySelectorAll('[data-mm-id]')].map((e) => e.getAttribute('data-mm-id')),
  }));
  const bodyBg = rgba(getComputedStyle(document.body).backgroundColor);
  const htmlBg = rgba(getComputedStyle(document.documentElement).backgroundColor);
  return {
    page: {
      viewportW: innerWidth, viewportH: innerHeight, scrollW: se.scrollWidth, scrollH: se.scrollHeight,
      title: document.title, lang: document.documentElement.lang || '',
      background: bodyBg && bodyBg[3] > 0 ? bodyBg : htmlBg && htmlBg[3] > 0 ? htmlBg : [255, 255, 255, 1],
      palette: [...palette.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)
        .map(([k, w]) => ({ rgb: k.split(',').map(Number), weight: w })),
    },
    sections, media, texts, overlaps, ids: idsInfo,
  };
}
