// Page facts for requirement checks, gathered in ONE async page.evaluate after the page settled.
// What a visitor sees: text counts only when its element is rendered (size, visibility, opacity,
// colour alpha); alt/title text never counts. Coordinates are CSS px in page space.
// Returns {text, blocks, sections, header, fonts, faces, styles, colours, widgets, pictures,
// videos, charts, rows, empties}; see mmstudio/render/facts.py for the shapes.
async ({ maxBlocks, maxText, scrollTo, pairs }) => {
  const sx = () => window.scrollX;
  const sy = () => window.scrollY;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const box = (r) => ({ x: r.left + sx(), y: r.top + sy(), w: r.width, h: r.height });
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const rgba = (s) => {
    const m = /rgba?\(([^)]+)\)/.exec(s || '');
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const sel = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 3; e = e.parentElement) {
      let s = e.tagName.toLowerCase();
      const mm = e.getAttribute('data-mm-id') || e.getAttribute('data-mm-section');
      if (mm) { parts.unshift(`${s}[data-mm="${mm}"]`); break; }
      if (e.id) { parts.unshift(`${s}#${e.id}`); break; }
      if (e.classList.length) s += '.' + [...e.classList].slice(0, 2).join('.');
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
  const shown = (el) => {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility !== 'visible') return false;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    return opacity(el) >= 0.05;
  };
  const ownerOf = (el) => {
    const o = el.closest('[data-mm-id]');
    return o ? o.getAttribute('data-mm-id') : null;
  };
  const sectionOf = (el) => {
    const s = el.closest('[data-mm-section]');
    return s ? s.getAttribute('data-mm-section') : null;
  };
  const inHeader = (el) => !!el.closest('header, nav, [role="banner"], [role="navigation"]');
  const buttonLike = (el, cs) => {
    if (el.matches('button, [role="button"], input[type="submit"], input[type="button"]')) return true;
    if (!el.matches('a')) return false;
    const bg = rgba(cs.backgroundColor);
    const border = parseFloat(cs.borderTopWidth) > 0 && cs.borderTopStyle !== 'none';
    return (bg && bg[3] > 0.3) || (border && parseFloat(cs.paddingLeft) >= 8);
  };

  // visible text, in document order, from text nodes whose element is rendered
  const textParts = [];
  const textOwners = new Set();
  let textLength = 0;
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n && textLength < maxText; n = walker.nextNode()) {
    const t = n.nodeValue;
    if (!t || !t.trim()) continue;
    const el = n.parentElement;
    if (!el || el.closest('script, style, noscript, template, title')) continue;
    if (!shown(el)) continue;
    const c = rgba(getComputedStyle(el).color);
    if (c && c[3] < 0.05) continue;
    textParts.push(t);
    textLength += t.length;
    textOwners.add(el);
  }
  for (const inp of document.querySelectorAll('input[type="submit"], input[type="button"]')) {
    if (shown(inp) && inp.value) { textParts.push(' ' + inp.value + ' '); textOwners.add(inp); }
  }

  // the colour behind an element's text: its own fill or the nearest opaque ancestor's
  const backdropOf = (el) => {
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c[3] >= 0.3) return c;
    }
    return null;
  };

  // a line under the text: text-decoration (its own or a link's inside it) or a bottom border
  const underlined = (el, cs) => {
    if (cs.textDecorationLine.includes('underline')) return true;
    if (parseFloat(cs.borderBottomWidth) > 0 && cs.borderBottomStyle !== 'none') return true;
    const a = el.querySelector('a, u');
    return !!a && getComputedStyle(a).textDecorationLine.includes('underline');
  };
  // where the glyphs are (a block's box spans its container; its text may sit left or centred)
  const inkOf = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    return r.width > 0 ? box(r) : null;
  };

  // blocks: elements whose whole text is short (labels, links, buttons, headings, cells)
  const blocks = [];
  const candidates = new Set();
  for (const el of textOwners) {
    for (let e = el, d = 0; e && e !== document.body && d < 4; e = e.parentElement, d++) candidates.add(e);
  }
  for (const el of candidates) {
    if (blocks.length >= maxBlocks) break;
    const raw = el.matches('input') ? el.value : el.innerText;
    const text = norm(raw);
    if (!text || text.length > 160) continue;
    const cs = getComputedStyle(el);
    const tag = el.tagName.toLowerCase();
    blocks.push({
      tag, text, selector: sel(el), rect: box(el.getBoundingClientRect()),
      link: el.matches('a[href]'), href: el.matches('a[href]') ? el.getAttribute('href') : null,
      button: buttonLike(el, cs),
      heading: /^h[1-6]$/.test(tag), header: inHeader(el),
      owner: ownerOf(el), section: sectionOf(el),
      background: rgba(cs.backgroundColor), backdrop: backdropOf(el), color: rgba(cs.color),
      font: cs.fontFamily, fontSize: parseFloat(cs.fontSize), fontWeight: parseInt(cs.fontWeight, 10) || 400,
      italic: cs.fontStyle === 'italic' || cs.fontStyle.startsWith('oblique'),
      underline: underlined(el, cs), align: cs.textAlign, ink: inkOf(el),
    });
  }

  // sections: planned sections and landmarks
  const sections = [];
  const seenSections = new Set();
  const landmarks = document.querySelectorAll(
    '[data-mm-section], body > header, body > footer, body > nav, body > section, main > section, body > main > *, section[id], footer, header');
  for (const el of landmarks) {
    if (seenSections.has(el) || sections.length >= 80) continue;
    seenSections.add(el);
    if (!shown(el)) continue;
    const h = el.querySelector('h1, h2, h3, h4');
    sections.push({
      id: el.getAttribute('data-mm-section') || el.id || '', tag: el.tagName.toLowerCase(),
      classes: el.className && typeof el.className === 'string' ? el.className : '',
      label: el.getAttribute('aria-label') || '', heading: h ? norm(h.innerText).slice(0, 160) : '',
      rect: box(el.getBoundingClientRect()), text: norm(el.innerText).slice(0, 400),
      media: el.querySelectorAll('img, video, iframe, canvas, svg').length,
    });
  }

  // the header: where it sits before and after the visitor scrolls
  const headerEl = document.querySelector(
    'body > header, header, [role="banner"], [data-mm-section*="header"], [data-mm-section*="nav"], body > nav, nav');
  let header = null;
  if (headerEl && shown(headerEl)) {
    const before = headerEl.getBoundingClientRect();
    const se = document.scrollingElement || document.documentElement;
    const target = Math.max(0, Math.min(scrollTo, se.scrollHeight - innerHeight));
    window.scrollTo({ top: target, left: 0, behavior: 'instant' });
    await frame(); await frame();
    const after = headerEl.getBoundingClientRect();
    const cs = getComputedStyle(headerEl);
    header = {
      selector: sel(headerEl), section: sectionOf(headerEl) || headerEl.getAttribute('data-mm-section'),
      position: cs.position, topBefore: before.top, topAfter: after.top, bottomAfter: after.bottom,
      scrolled: window.scrollY, h: before.height, w: before.width,
      background: rgba(cs.backgroundColor),
    };
    window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
    await frame();
  }

  // fonts: the first family each kind of text asks for, and the faces that did load
  const fonts = [];
  for (const [where, q] of [['body', 'body'], ['heading', 'h1, h2'], ['subheading', 'h3, h4'],
    ['paragraph', 'p'], ['button', 'button, a[class*="btn"], a[class*="button"]'], ['nav', 'nav a, header a']]) {
    const el = [...document.querySelectorAll(q)].find(shown);
    if (el) fonts.push({ where, family: getComputedStyle(el).fontFamily });
  }
  const faces = document.fonts ? [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family) : [];
  // which named families this browser can actually draw (width test against two generic faces)
  const ctx = document.createElement('canvas').getContext('2d');
  const sample = 'mmmmmmmmmmlli WQ@#0123456789';
  const width = (family) => { ctx.font = `40px ${family}`; return ctx.measureText(sample).width; };
  const available = {};
  const generic = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-sans-serif', 'ui-serif', 'ui-monospace', 'inherit', 'initial']);
  for (const f of fonts) {
    for (const raw of f.family.split(',')) {
      const name = raw.trim().replace(/^["']|["']$/g, '');
      if (!name || generic.has(name.toLowerCase()) || name in available) continue;
      const q = `"${name}"`;
      available[name] = width(`${q}, monospace`) !== width('monospace') || width(`${q}, serif`) !== width('serif');
    }
  }

  // styles: gradients, shadows; colours by role and area
  const styles = { gradients: [], boxShadows: [], textShadows: [] };
  const colours = {};
  const addColour = (c, role, w) => {
    if (!c || c[3] < 0.5 || w <= 0) return;
    const k = `${role}:${c[0]},${c[1]},${c[2]}`;
    colours[k] = (colours[k] || 0) + w;
  };
  const all = document.body ? document.body.querySelectorAll('*') : [];
  let visited = 0;
  const pageArea = Math.max(1, document.documentElement.scrollWidth * document.documentElement.scrollHeight);
  const pictures = [];
  const short = (src) => (src && src.startsWith('data:') ? src.slice(0, 48) : src); // an inline image's bytes stay in the page
  for (const el of all) {
    if (++visited > 6000) break;
    if (el.closest('script, style, svg')) continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility !== 'visible') continue;
    const r = el.getBoundingClientRect();
    const area = r.width * r.height;
    if (area < 1 || opacity(el) < 0.05) continue;
    addColour(rgba(cs.backgroundColor), 'bg', area / pageArea);
    if (cs.backgroundImage && cs.backgroundImage.includes('gradient') && area > 1500) {
      styles.gradients.push({ selector: sel(el), area, value: cs.backgroundImage.slice(0, 160) });
    }
    if (cs.boxShadow && cs.boxShadow !== 'none' && area > 400) styles.boxShadows.push({ selector: sel(el), value: cs.boxShadow.slice(0, 80) });
    if (cs.textShadow && cs.textShadow !== 'none') styles.textShadows.push({ selector: sel(el), value: cs.textShadow.slice(0, 80) });
    if (textOwners.has(el)) addColour(rgba(cs.color), 'text', Math.min(1, norm(el.textContent).length / 200));
    if (parseFloat(cs.borderTopWidth) > 0 && cs.borderTopStyle !== 'none') addColour(rgba(cs.borderTopColor), 'border', 0.001);
    const bgUrl = /url\(["']?([^"')]+)["']?\)/.exec(cs.backgroundImage || '');
    if (bgUrl && area > 2500 && !/^data:image\/svg/.test(bgUrl[1])) {
      pictures.push({ kind: 'background', src: short(new URL(bgUrl[1], document.baseURI).href), rect: box(r), alt: el.getAttribute('aria-label') || '',
        owner: ownerOf(el), section: sectionOf(el), selector: sel(el) });
    }
    if (el.tagName === 'IMG' && area > 400) {
      pictures.push({ kind: 'img', src: short(el.currentSrc || el.src), rect: box(r), alt: el.alt || '',
        owner: ownerOf(el), section: sectionOf(el), selector: sel(el) });
    }
  }
  // icons: small marks (an inline svg, a small img or background picture, 8-200 px a side)
  const icons = [];
  for (const el of document.querySelectorAll('svg, img, [style*="background"], [class*="icon"], [class*="logo"]')) {
    if (icons.length >= 200) break;
    if (el.parentElement && el.parentElement.closest('svg')) continue;
    if (!shown(el) || el.closest('[_echarts_instance_]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 8 || r.height < 8 || r.width > 200 || r.height > 200) continue;
    const cs = getComputedStyle(el);
    const drawn = el.matches('svg, img') || /url\(/.test(cs.backgroundImage || '') || el.querySelector('svg, img');
    if (!drawn) continue;
    icons.push({ kind: el.tagName.toLowerCase(), src: '', rect: box(r), alt: el.getAttribute('aria-label') || el.getAttribute('alt') || '',
      owner: ownerOf(el), section: sectionOf(el), selector: sel(el) });
  }
  for (const k of Object.keys(styles)) styles[k] = styles[k].slice(0, 40);
  const colourList = Object.entries(colours).map(([k, w]) => {
    const [role, v] = k.split(':');
    return { role, rgb: v.split(',').map(Number), weight: w };
  }).sort((a, b) => b.weight - a.weight).slice(0, 120);
  const pageBg = rgba(getComputedStyle(document.body || document.documentElement).backgroundColor);
  const rootBg = rgba(getComputedStyle(document.documentElement).backgroundColor);

  const videos = [...document.querySelectorAll('video')].filter(shown).map((v) => ({
    src: short(v.currentSrc || v.src), rect: box(v.getBoundingClientRect()), owner: ownerOf(v),
    section: sectionOf(v), autoplay: v.autoplay, loop: v.loop, muted: v.muted,
  }));

  // widgets a brief can ask for
  const count = (q) => [...document.querySelectorAll(q)].filter(shown).length;
  const inputs = [...document.querySelectorAll('input, textarea, select')].filter(shown).map((i) => {
    const id = i.id ? document.querySelector(`label[for="${CSS.escape(i.id)}"]`) : null;
    const wrap = i.closest('label');
    const chosen = i.matches('select') && i.selectedOptions.length ? i.selectedOptions[0].text : '';
    return { tag: i.tagName.toLowerCase(), type: i.type || '', name: i.name || '',
      placeholder: i.placeholder || chosen || '', label: norm((id || wrap || {}).innerText || i.getAttribute('aria-label') || ''),
      rect: box(i.getBoundingClientRect()) };
  });
  const named = (words) => [...document.querySelectorAll('[class], [id]')].filter((e) => {
    const s = `${e.id} ${typeof e.className === 'string' ? e.className : ''}`.toLowerCase();
    return words.some((w) => s.includes(w)) && shown(e);
  }).length;
  const widgets = {
    table: [...document.querySelectorAll('table')].filter((t) => shown(t) && t.rows.length >= 2).length,
    form: count('form'), inputs,
    search: inputs.filter((i) => i.type === 'search' || /search|find/i.test(`${i.placeholder} ${i.name} ${i.label}`)).length,
    tabs: count('[role="tab"]'), toggle: count('input[type="checkbox"], [role="switch"]') + named(['toggle', 'switch']),
    map: count('iframe[src*="map"], img[src*="map"], img[alt*="map" i], [class*="map"], [id*="map"]'),
    counter: named(['counter', 'kpi', 'stat']),
    accordion: count('details, [aria-expanded]'), carousel: named(['carousel', 'slider', 'swiper']),
    modal: count('dialog, [role="dialog"]'),
    // charts drawn without ECharts (canvas, a large svg): a chart check can only say "unchecked"
    graphics: [...document.querySelectorAll('canvas, svg')].filter((g) => {
      if (!shown(g) || g.closest('[_echarts_instance_]')) return false;
      const r = g.getBoundingClientRect();
      if (r.width < 100 || r.height < 60) return false;
      return g.tagName === 'CANVAS' || g.querySelectorAll('path, rect, circle').length > 20;
    }).slice(0, 40).map((g) => {
      const sec = g.closest('section, [data-mm-section], figure, div');
      const h = sec ? sec.querySelector('h1, h2, h3, h4, figcaption') : null;
      return { kind: g.tagName.toLowerCase(), owner: ownerOf(g), section: sectionOf(g), rect: box(g.getBoundingClientRect()),
        label: g.getAttribute('aria-label') || (h ? norm(h.innerText).slice(0, 120) : '') };
    }),
  };

  // charts: read the live ECharts instances of the page and its same-origin frames
  const charts = [];
  const docs = [[window, null]];
  for (const f of document.querySelectorAll('iframe')) {
    try { if (f.contentWindow && f.contentDocument) docs.push([f.contentWindow, f]); } catch (e) { /* cross-origin */ }
  }
  const values = (data) => (Array.isArray(data) ? data.slice(0, 200).map((d) => {
    if (d && typeof d === 'object' && !Array.isArray(d)) return { name: d.name ?? null, value: d.value ?? null };
    return d;
  }) : []);
  for (const [win, frameEl] of docs) {
    const ec = win.echarts;
    const nodes = win.document.querySelectorAll('[_echarts_instance_]');
    for (const node of nodes) {
      let option = null;
      try { option = ec && ec.getInstanceByDom(node) ? ec.getInstanceByDom(node).getOption() : null; } catch (e) { option = null; }
      const host = frameEl || node;
      const axis = (a) => (Array.isArray(a) ? a : a ? [a] : []).map((x) => ({ type: x.type || '', name: typeof x.name === 'string' ? x.name.slice(0, 120) : '', data: values(x.data || []) }));
      charts.push({
        owner: ownerOf(host), section: sectionOf(host), rect: box(host.getBoundingClientRect()),
        shown: shown(host), readable: !!option,
        series: option ? (option.series || []).slice(0, 20).map((s) => ({ type: s.type || '', name: s.name ?? '', stack: s.stack ?? null,
          data: values(s.data), radius: s.radius ?? null, areaStyle: !!s.areaStyle })) : [],
        xAxis: option ? axis(option.xAxis) : [], yAxis: option ? axis(option.yAxis) : [],
        legend: option && option.legend ? (Array.isArray(option.legend) ? option.legend : [option.legend]).filter((l) => l.show !== false).length : 0,
        title: option && option.title ? (Array.isArray(option.title) ? option.title : [option.title]).map((t) => t.text || '').join(' ') : '',
        labels: option ? [
          ...(option.radar || []).flatMap((r) => (r.indicator || []).map((i) => i.name || '')),
          ...(option.legend || []).flatMap((l) => (l.data || []).map((d) => (typeof d === 'string' ? d : (d && d.name) || ''))),
          ...[...(option.xAxis || []), ...(option.yAxis || [])].map((a) => a.name || ''),
          ...(option.series || []).flatMap((s) => (s.type === 'gauge' && s.detail && s.detail.formatter && typeof s.detail.formatter === 'string') ? [s.detail.formatter] : []),
        ].filter(Boolean).slice(0, 200) : [],
        dataset: option && option.dataset ? (Array.isArray(option.dataset) ? option.dataset : [option.dataset]).map((d) => (d.source || []).slice(0, 200)) : [],
      });
    }
  }

  // rows: containers whose children sit side by side (columns, grids)
  const rows = [];
  const containers = document.querySelectorAll('main *, section *, header *, footer *, body > div *');
  let seenRows = 0;
  for (const el of containers) {
    if (rows.length >= 200 || ++seenRows > 5000) break;
    const kids = [...el.children].filter((k) => shown(k) && !k.matches('script, style, br'));
    if (kids.length < 2) continue;
    const rects = kids.map((k) => k.getBoundingClientRect());
    const top = rects[0].top;
    const first = rects.filter((r) => Math.abs(r.top - top) < Math.max(8, rects[0].height * 0.3));
    if (first.length < 2) continue;
    const parent = el.getBoundingClientRect();
    if (first.reduce((s, r) => s + r.width, 0) < parent.width * 0.5) continue;
    rows.push({ selector: sel(el), section: sectionOf(el), owner: ownerOf(el), perRow: first.length, total: kids.length,
      widths: first.map((r) => Math.round(r.width)), width: Math.round(parent.width), y: Math.round(parent.top + sy()) });
  }

  // empty cards and sections
  const empties = [];
  for (const el of document.querySelectorAll('[data-mm-section], section, [class*="card"]')) {
    if (empties.length >= 40 || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width * r.height < 4000) continue;
    if (norm(el.innerText) || el.querySelector('img, video, iframe, canvas, svg, input, button')) continue;
    const bg = /url\(/.test(getComputedStyle(el).backgroundImage);
    if (bg) continue;
    empties.push({ selector: sel(el), section: sectionOf(el), owner: ownerOf(el),
      kind: el.matches('[data-mm-section], section') ? 'section' : 'card', rect: box(r) });
  }

  // pairs: where two texts of one item sit, and the smallest box holding both
  const fold = (t) => norm(t).toLowerCase().replace(/[“”"'’.,;:!?]/g, '');
  const folded = (pairs || []).length ? new Map([...candidates].map((el) => [el, fold(el.textContent || '')])) : new Map();
  const locate = (want) => {
    const w = fold(want);
    if (!w) return null;
    let best = null;
    let exact = null;
    for (const [el, t] of folded) {
      if (t === w && (!exact || exact.contains(el))) exact = el;
      if (t.includes(w) && (!best || (best.contains(el) && best !== el))) best = el;
    }
    return exact || best;
  };
  const landmark = (el) => !el || el === document.body || el.matches('body, main, html, [data-mm-section], section, header, footer');
  const located = (pairs || []).map(([a, b]) => {
    const ea = locate(a);
    const eb = locate(b);
    if (!ea || !eb) return { a, b, found: [!!ea, !!eb] };
    let common = ea;
    while (common && !common.contains(eb)) common = common.parentElement;
    const inside = common ? fold(common.textContent || '') : '';
    const others = (pairs || []).filter(([x]) => x !== a && fold(x) && inside.includes(fold(x))).length;
    const ra = ea.getBoundingClientRect();
    const rb = eb.getBoundingClientRect();
    return { a, b, found: [true, true], selector: common ? sel(common) : '', landmark: landmark(common),
      others, distance: Math.round(Math.hypot((ra.left + ra.right - rb.left - rb.right) / 2, (ra.top + ra.bottom - rb.top - rb.bottom) / 2)),
      section: common ? sectionOf(common) : null };
  });

  return {
    pairs: located,
    text: textParts.join(' ').replace(/\s+/g, ' ').slice(0, maxText), blocks, sections, header, fonts, faces, available,
    anchors: [...document.querySelectorAll('[id]')].slice(0, 800).map((e) => e.id),
    styles, colours: colourList, pageBackground: pageBg && pageBg[3] > 0 ? pageBg : rootBg,
    widgets, pictures: pictures.slice(0, 200), icons, videos, charts, rows, empties,
  };
}
