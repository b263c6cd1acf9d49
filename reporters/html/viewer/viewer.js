// boxflow report viewer: a plain classic script (no modules, no fetch) so index.html works from
// file://. data/report.js sets window.__BOXFLOW_REPORT__ before this runs. Flows render in
// chunks as the list scrolls; a flow's steps render only when it is expanded.
(function () {
  'use strict';

  var kFlowChunk = 100;
  var kStepChunk = 200;
  var data = window.__BOXFLOW_REPORT__;
  var app = document.getElementById('app');
  if (!data || !data.result) {
    app.textContent = 'No report data: data/report.js is missing or empty.';
    return;
  }
  var R = data.result;
  var state = { status: 'all', tag: '', text: '' };
  var searchCache = new Map();
  var layoutCache = {};
  var layoutWaiters = {};
  var marks = { passed: '✓', failed: '✘', flaky: '±', skipped: '–', warned: '!', interrupted: '✘' };

  // ---- helpers ---------------------------------------------------------------------------------

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') el.className = v;
        else if (k === 'text') el.textContent = v;
        else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
        else if (k === 'testid') el.setAttribute('data-testid', v);
        else el.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }

  function append(el, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(el, c); });
    else if (typeof child === 'string' || typeof child === 'number') el.appendChild(document.createTextNode(String(child)));
    else el.appendChild(child);
  }

  function fmtDuration(ms) {
    if (ms === undefined || ms === null) return '';
    if (ms < 1000) return Math.round(ms) + 'ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + 's';
    var m = Math.floor(ms / 60000);
    var s = Math.floor((ms % 60000) / 1000);
    return m + 'm ' + (s < 10 ? '0' : '') + s + 's';
  }

  function walk(steps, depth, out) {
    (steps || []).forEach(function (s) {
      out.push({ step: s, depth: depth });
      if (s.children) walk(s.children, depth + 1, out);
    });
    return out;
  }

  function lastAttempt(f) {
    return f.attempts[f.attempts.length - 1];
  }

  function flowSearchText(f) {
    var t = searchCache.get(f.id);
    if (t !== undefined) return t;
    var parts = [f.name, f.file, f.status, (f.tags || []).join(' ')];
    if (f.box) parts.push(f.box.id, f.box.type);
    if (f.error) parts.push(f.error.code, f.error.message);
    f.attempts.forEach(function (a) {
      walk(a.steps, 0, []).forEach(function (e) {
        var s = e.step;
        parts.push(s.label, s.command, s.actionId || '', s.message || '');
        if (s.error) parts.push(s.error.code, s.error.message);
      });
    });
    t = parts.join('\n').toLowerCase();
    searchCache.set(f.id, t);
    return t;
  }

  function copyText(text, button) {
    function done() {
      var old = button.textContent;
      button.textContent = 'Copied';
      button.classList.add('copied');
      setTimeout(function () { button.textContent = old; button.classList.remove('copied'); }, 1200);
    }
    function fallback() {
      var ta = h('textarea', { class: 'offscreen' });
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      try { document.execCommand('copy'); } catch (e) { /* nothing more to try */ }
      ta.remove();
      done();
    }
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  }

  // ---- lightbox --------------------------------------------------------------------------------

  // An image opens with the others of its flow (the attempt on screen) as a gallery, in page order:
  // every element with data-full (its image) and data-caption. ‹ › and ←/→ step through them.
  var lightbox = document.getElementById('lightbox');
  var gallery = [];
  var galleryAt = 0;
  function openFrom(el) {
    var scope = el.closest('[data-testid=flow]') || document;
    var items = Array.prototype.slice.call(scope.querySelectorAll('[data-full]'));
    gallery = items.map(function (e) { return { src: e.getAttribute('data-full'), caption: e.getAttribute('data-caption') || e.getAttribute('data-full') }; });
    showImage(Math.max(0, items.indexOf(el)));
  }
  function showImage(i) {
    if (i < 0 || i >= gallery.length) return;
    galleryAt = i;
    var item = gallery[i];
    var many = gallery.length > 1;
    lightbox.textContent = '';
    append(lightbox, [
      h('div', { class: 'lightbox-bar' },
        many ? h('button', { class: 'lightbox-nav', testid: 'lightbox-prev', title: 'Previous image (←)', 'aria-label': 'Previous image', text: '‹', disabled: i === 0, onclick: function () { showImage(galleryAt - 1); } }) : null,
        many ? h('span', { class: 'lightbox-pos', testid: 'lightbox-pos', text: (i + 1) + ' / ' + gallery.length }) : null,
        many ? h('button', { class: 'lightbox-nav', testid: 'lightbox-next', title: 'Next image (→)', 'aria-label': 'Next image', text: '›', disabled: i === gallery.length - 1, onclick: function () { showImage(galleryAt + 1); } }) : null,
        h('span', { class: 'lightbox-caption', testid: 'lightbox-caption', text: item.caption }),
        h('a', { href: item.src, target: '_blank', rel: 'noopener', text: 'open original' }),
        h('button', { class: 'lightbox-close', testid: 'lightbox-close', title: 'Close (Esc)', text: '×', onclick: closeImage })),
      h('img', { src: item.src, alt: item.caption, testid: 'lightbox-img' }),
    ]);
    lightbox.hidden = false;
  }
  function closeImage() {
    lightbox.hidden = true;
    lightbox.textContent = '';
    gallery = [];
  }
  lightbox.addEventListener('click', function (e) { if (e.target === lightbox) closeImage(); });
  document.addEventListener('keydown', function (e) {
    if (lightbox.hidden) return;
    if (e.key === 'Escape') closeImage();
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      e.preventDefault();
      showImage(galleryAt + (e.key === 'ArrowLeft' ? -1 : 1));
    }
  });

  /** `context` names what the image belongs to (its step), for the lightbox's caption. */
  function thumb(label, src, context) {
    return h('button', { class: 'thumb', testid: 'thumb', 'data-label': label, 'data-full': src, 'data-caption': (context ? context + ' · ' : '') + label, title: label + ': open full size',
      onclick: function (e) { openFrom(e.currentTarget); } },
      h('img', { src: src, alt: label, loading: 'lazy', decoding: 'async' }),
      h('span', { class: 'thumb-label', text: label }));
  }

  // ---- summary and filters ---------------------------------------------------------------------

  function renderSummary() {
    var st = R.stats;
    var counts = [['total', st.total], ['passed', st.passed], ['failed', st.failed], ['flaky', st.flaky], ['skipped', st.skipped]];
    var boxes = (R.boxes || []).map(function (b) { return h('span', { class: 'box-chip', testid: 'box' }, h('b', { text: b.type }), ' ', b.id); });
    return h('header', { class: 'summary', testid: 'summary' },
      h('div', { class: 'title-row' },
        h('h1', { text: data.title || 'boxflow report' }),
        h('span', { class: 'badge status-' + R.status, testid: 'run-status', text: R.status })),
      h('div', { class: 'counts' }, counts.map(function (c) {
        return h('button', { class: 'count count-' + c[0], testid: 'count-' + c[0], 'data-count': c[1], onclick: function () { setStatus(c[0] === 'total' ? 'all' : c[0]); } },
          h('span', { class: 'count-n', text: c[1] }), h('span', { class: 'count-label', text: c[0] }));
      })),
      h('dl', { class: 'meta' },
        h('dt', { text: 'duration' }), h('dd', { testid: 'duration', text: fmtDuration(R.durationMs) }),
        h('dt', { text: 'started' }), h('dd', { text: new Date(R.startedAt).toLocaleString() }),
        R.shard ? [h('dt', { text: 'shard' }), h('dd', { testid: 'shard', text: R.shard.index + '/' + R.shard.total })] : null,
        h('dt', { text: 'boxes' }), h('dd', { class: 'boxes' }, boxes.length ? boxes : '—')),
      (R.errors || []).length ? h('ul', { class: 'run-errors', testid: 'run-errors' }, R.errors.map(function (e) { return h('li', {}, h('code', { text: e.code }), ' ', e.message); })) : null);
  }

  var statusButtons = {};
  var listInfo;
  function renderFilters() {
    var tags = {};
    R.flows.forEach(function (f) { (f.tags || []).forEach(function (t) { tags[t] = (tags[t] || 0) + 1; }); });
    var statuses = ['all', 'passed', 'failed', 'flaky', 'skipped'];
    var select = h('select', { testid: 'filter-tag', 'aria-label': 'Filter by tag', onchange: function (e) { state.tag = e.target.value; renderList(); } },
      h('option', { value: '', text: 'all tags' }),
      Object.keys(tags).sort().map(function (t) { return h('option', { value: t, text: t + ' (' + tags[t] + ')' }); }));
    var timer;
    var input = h('input', { type: 'search', testid: 'filter-text', placeholder: 'Filter: name, file, tag, step, actionId…', 'aria-label': 'Filter text',
      oninput: function (e) { clearTimeout(timer); var v = e.target.value; timer = setTimeout(function () { state.text = v.trim().toLowerCase(); renderList(); }, 120); } });
    listInfo = h('span', { class: 'list-info', testid: 'list-info' });
    return h('nav', { class: 'filters' },
      h('div', { class: 'status-filters', role: 'group', 'aria-label': 'Filter by status' }, statuses.map(function (s) {
        var n = s === 'all' ? R.stats.total : R.stats[s];
        var b = h('button', { class: 'status-filter' + (s === state.status ? ' active' : ''), testid: 'filter-status-' + s, 'data-status': s, onclick: function () { setStatus(s); } }, s + ' ', h('span', { class: 'n', text: n }));
        statusButtons[s] = b;
        return b;
      })),
      select, input, listInfo);
  }

  function setStatus(s) {
    state.status = s;
    for (var k in statusButtons) statusButtons[k].classList.toggle('active', k === s);
    renderList();
  }

  // ---- flow list (chunked) ---------------------------------------------------------------------

  var listEl = h('main', { class: 'flows', testid: 'flows' });
  var observer = 'IntersectionObserver' in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { if (e.isIntersecting && e.target.__more) e.target.__more(); });
  }, { rootMargin: '600px' }) : null;

  function matchesFilter(f) {
    if (state.status !== 'all' && f.status !== state.status) return false;
    if (state.tag && (f.tags || []).indexOf(state.tag) < 0) return false;
    if (state.text) {
      var words = state.text.split(/\s+/);
      var hay = flowSearchText(f);
      for (var i = 0; i < words.length; i++) if (hay.indexOf(words[i]) < 0) return false;
    }
    return true;
  }

  /** Renders the rest of the flow list at once (for print); set by renderList. */
  var renderAllFlows = function () {};

  // Failed flows first (then flaky), each group in run order; the first failed ones open by themselves.
  var kRank = { failed: 0, flaky: 1 };
  var kOpenFailed = 20;
  function renderList() {
    var flows = R.flows.filter(matchesFilter).map(function (f, i) { return [f, i]; }).sort(function (a, b) {
      var ra = kRank[a[0].status] === undefined ? 2 : kRank[a[0].status];
      var rb = kRank[b[0].status] === undefined ? 2 : kRank[b[0].status];
      return ra - rb || a[1] - b[1];
    }).map(function (p) { return p[0]; });
    var opened = 0;
    listEl.textContent = '';
    listInfo.textContent = flows.length === R.flows.length ? flows.length + ' flows' : flows.length + ' of ' + R.flows.length + ' flows';
    if (!flows.length) {
      listEl.appendChild(h('p', { class: 'empty', testid: 'no-flows', text: 'No flow matches the filters.' }));
      return;
    }
    var shown = 0;
    renderAllFlows = function () { while (shown < flows.length) more(); };
    function more() {
      var end = Math.min(flows.length, shown + kFlowChunk);
      var frag = document.createDocumentFragment();
      for (; shown < end; shown++) {
        var row = flowRow(flows[shown]);
        if (flows[shown].status === 'failed' && opened < kOpenFailed) { opened++; row.querySelector('.flow-head').click(); }
        frag.appendChild(row);
      }
      var old = listEl.querySelector('.sentinel');
      if (old) { if (observer) observer.unobserve(old); old.remove(); }
      listEl.appendChild(frag);
      if (shown < flows.length) {
        var s = h('button', { class: 'sentinel', text: 'Show more flows (' + (flows.length - shown) + ' left)', onclick: function () { more(); } });
        s.__more = more;
        listEl.appendChild(s);
        if (observer) observer.observe(s);
      }
    }
    more();
  }

  function flowRow(f) {
    var body = h('div', { class: 'flow-body', hidden: true });
    var head = h('button', { class: 'flow-head', 'aria-expanded': 'false', testid: 'flow-head',
      onclick: function () {
        var open = head.getAttribute('aria-expanded') !== 'true';
        head.setAttribute('aria-expanded', String(open));
        body.hidden = !open;
        if (open && !body.__rendered) { body.__rendered = true; renderFlowBody(f, body); }
      } },
      h('span', { class: 'mark status-' + f.status, text: marks[f.status] || '?' }),
      h('span', { class: 'flow-name', testid: 'flow-name', text: f.name }),
      h('span', { class: 'flow-file', text: f.file }),
      (f.tags || []).map(function (t) { return h('span', { class: 'tag', text: t }); }),
      f.attempts.length > 1 ? h('span', { class: 'attempts-badge', text: f.attempts.length + ' attempts' }) : null,
      f.box ? h('span', { class: 'box-chip small', text: f.box.type + ' ' + f.box.id }) : null,
      h('span', { class: 'duration', text: fmtDuration(f.durationMs) }));
    return h('section', { class: 'flow status-' + f.status, testid: 'flow', 'data-flow-id': f.id, 'data-status': f.status }, head, body);
  }

  function renderFlowBody(f, body) {
    var view = h('div', { class: 'attempt-view' });
    if (f.attempts.length > 1) {
      var tabs = h('div', { class: 'tabs attempts', role: 'tablist' });
      f.attempts.forEach(function (a, i) {
        var tab = h('button', { class: 'tab status-' + a.status, role: 'tab', testid: 'attempt-tab', 'data-attempt': a.attempt,
          onclick: function () {
            Array.prototype.forEach.call(tabs.children, function (c) { c.classList.remove('active'); c.setAttribute('aria-selected', 'false'); });
            tab.classList.add('active');
            tab.setAttribute('aria-selected', 'true');
            renderAttempt(f, a, view);
          } }, (marks[a.status] || '') + ' attempt ' + a.attempt + ' · ' + fmtDuration(a.durationMs));
        if (i === f.attempts.length - 1) { tab.classList.add('active'); tab.setAttribute('aria-selected', 'true'); }
        tabs.appendChild(tab);
      });
      body.appendChild(tabs);
    }
    body.appendChild(view);
    if (f.attempts.length) renderAttempt(f, lastAttempt(f), view);
    else if (f.error) view.appendChild(errorBlock(f.error));
  }

  function renderAttempt(f, a, view) {
    view.textContent = '';
    view.appendChild(h('div', { class: 'attempt-meta' },
      h('span', { class: 'badge status-' + a.status, text: a.status }),
      ' attempt ' + a.attempt + ' · started ' + new Date(a.startedAt).toLocaleTimeString() + ' · ' + fmtDuration(a.durationMs),
      a.box ? h('span', { class: 'box-chip small' }, h('b', { text: a.box.type }), ' ', a.box.id) : null));
    var rows = walk(a.steps, 0, []);
    var hasFailedStep = rows.some(function (r) { return r.step.status === 'failed'; });
    var err = a.error || (a === lastAttempt(f) ? f.error : null);
    if (err && !hasFailedStep) view.appendChild(errorBlock(err));
    var list = h('ol', { class: 'steps', testid: 'steps' });
    var player = a.video ? videoPlayer(a.video, list) : null;
    if (player) view.appendChild(player.el);
    view.__player = player;
    view.appendChild(list);
    var shown = 0;
    function more() {
      var end = Math.min(rows.length, shown + kStepChunk);
      var frag = document.createDocumentFragment();
      for (; shown < end; shown++) frag.appendChild(stepRow(rows[shown].step, rows[shown].depth, player));
      list.appendChild(frag);
      if (shown < rows.length) {
        var b = h('button', { class: 'more-steps', testid: 'more-steps', text: 'Show ' + Math.min(kStepChunk, rows.length - shown) + ' more steps (' + (rows.length - shown) + ' left)',
          onclick: function () { b.remove(); more(); } });
        view.appendChild(b);
      }
    }
    more();
    if (!rows.length) list.appendChild(h('li', { class: 'empty', text: 'No step finished.' }));
  }

  // ---- video -----------------------------------------------------------------------------------

  function fmtClock(ms) {
    var t = Math.max(0, Math.floor(ms / 100)) / 10;
    var m = Math.floor(t / 60);
    var sec = (t - m * 60).toFixed(1);
    return m + ':' + (sec < 10 ? '0' : '') + sec;
  }

  /**
   * The attempt's video with a chapter per step (results.json's chapters; the same as the WebVTT file,
   * added as a chapters track for players that show one, and for a report served over http: a report
   * opened from file:// cannot load a track). seek(chapter) jumps to a step's moment; while it plays,
   * the step on screen is marked in the list.
   */
  function videoPlayer(v, list) {
    var chapters = v.chapters || [];
    var byStep = {};
    chapters.forEach(function (c) { byStep[c.stepId] = c; });
    var video = h('video', { class: 'video', testid: 'video', controls: true, preload: 'auto', src: v.path });
    if (v.vtt) video.appendChild(h('track', { kind: 'chapters', label: 'Steps', srclang: 'en', src: v.vtt, default: true }));
    var now = h('span', { class: 'video-chapter', testid: 'video-chapter' });
    var el = h('div', { class: 'video-block', testid: 'video-block' },
      video,
      h('div', { class: 'video-meta' },
        now,
        v.truncated ? h('span', { class: 'muted', text: ' · the video ends early (' + v.truncated + ' bound)' }) : null,
        h('a', { href: v.path, target: '_blank', rel: 'noopener', text: 'open video' }),
        v.vtt ? h('a', { href: v.vtt, target: '_blank', rel: 'noopener', text: 'chapters (WebVTT)' }) : null));
    var marked = null;
    function current() {
      var t = video.currentTime * 1000 + 1;
      var found = null;
      chapters.forEach(function (c) { if (c.startMs <= t) found = c; });
      return found;
    }
    function mark() {
      var c = current();
      now.textContent = c ? 'step ' + c.stepId + ' · ' + c.label + (c.actionId ? ' · ' + c.actionId : '') : '';
      var row = c ? list.querySelector('[data-testid=step][data-step-id="' + c.stepId + '"]') : null;
      if (row === marked) return;
      if (marked) marked.classList.remove('playing');
      if (row) row.classList.add('playing');
      marked = row;
    }
    video.addEventListener('timeupdate', mark);
    video.addEventListener('seeked', mark);
    return {
      el: el,
      video: video,
      chapter: function (stepId) { return byStep[stepId] || null; },
      seek: function (c) {
        var go = function () { video.currentTime = c.startMs / 1000; mark(); };
        if (video.readyState >= 1) go();
        else video.addEventListener('loadedmetadata', go, { once: true });
        // Scrolled to just below the sticky filter bar, which would otherwise cover the video's top.
        var bar = document.querySelector('.filters');
        var covered = bar ? bar.getBoundingClientRect().bottom : 0;
        if (el.getBoundingClientRect().top < covered) {
          el.style.scrollMarginTop = ((bar ? bar.offsetHeight : 0) + 8) + 'px';
          el.scrollIntoView({ block: 'start', behavior: 'smooth' });
        }
      },
    };
  }

  // ---- steps -----------------------------------------------------------------------------------

  function stepRow(s, depth, player) {
    var src = s.source ? s.source.file + ':' + s.source.line : '';
    var chapter = player ? player.chapter(s.id) : null;
    // With a video, a click on the step's line (not on its buttons or links) shows its moment.
    var onLine = chapter ? function (e) { if (!e.target.closest('button, a, input')) player.seek(chapter); } : null;
    var li = h('li', { class: 'step status-' + s.status + (chapter ? ' has-video' : ''), testid: 'step', 'data-step-id': s.id, 'data-status': s.status, style: '--depth:' + depth },
      h('div', { class: 'step-line', onclick: onLine },
        chapter ? h('button', { class: 'seek', testid: 'step-seek', title: 'Show this step in the video', 'data-start-ms': chapter.startMs, text: '▶ ' + fmtClock(chapter.startMs), onclick: function () { player.seek(chapter); } }) : null,
        h('span', { class: 'mark status-' + s.status, title: s.status, text: marks[s.status] || '?' }),
        h('span', { class: 'step-id', text: s.id }),
        h('span', { class: 'step-label', testid: 'step-label', text: s.label }),
        h('code', { class: 'step-command', text: s.command }),
        s.attempt ? h('span', { class: 'attempts-badge', text: 'attempt ' + s.attempt }) : null,
        s.attempts > 1 ? h('span', { class: 'attempts-badge', text: s.attempts + ' tries' }) : null,
        src ? h('span', { class: 'step-source', title: src + ':' + s.source.column, text: src }) : null,
        h('span', { class: 'duration', text: fmtDuration(s.durationMs) }),
        s.actionId ? h('span', { class: 'action-id' },
          h('code', { testid: 'action-id', title: 'actionId', text: s.actionId }),
          h('button', { class: 'copy', testid: 'copy-action-id', title: 'Copy actionId', text: 'Copy', onclick: function (e) { copyText(s.actionId, e.currentTarget); } })) : null),
      s.message ? h('div', { class: 'step-message', testid: 'step-message', text: s.message }) : null,
      s.url ? h('div', { class: 'step-url' }, h('a', { href: s.url, target: '_blank', rel: 'noopener', text: s.url })) : null,
      thumbs(s),
      s.error ? errorBlock(s.error) : null,
      s.visual ? visualBlock(s.visual) : null,
      s.layout ? layoutBlock(s.layout, s.status === 'failed') : null,
      otherAttachments(s));
    return li;
  }

  function thumbs(s) {
    var items = [];
    var sc = s.screenshots || {};
    var context = s.id + ' ' + s.label;
    ['before', 'after', 'trace'].forEach(function (k) { if (sc[k]) items.push(thumb(k, sc[k], context)); });
    if (sc.failure) items.push(thumb('at failure', sc.failure, context));
    (s.attachments || []).forEach(function (a) { if (/^image\//.test(a.contentType)) items.push(thumb(a.name, a.path, context)); });
    return items.length ? h('div', { class: 'thumbs' }, items) : null;
  }

  function otherAttachments(s) {
    var other = (s.attachments || []).filter(function (a) { return !/^image\//.test(a.contentType); });
    if (!other.length) return null;
    return h('ul', { class: 'attachments' }, other.map(function (a) { return h('li', {}, h('a', { href: a.path, target: '_blank', text: a.name }), ' ', h('small', { text: a.contentType })); }));
  }

  function errorBlock(err) {
    return h('div', { class: 'error', testid: 'error' },
      h('div', { class: 'error-head' }, h('code', { class: 'error-code', testid: 'error-code', text: err.code }), ' ', h('span', { class: 'error-message', text: err.message })),
      err.snippet ? h('pre', { class: 'code-frame', testid: 'code-frame', text: err.snippet }) : null);
  }

  function visualBlock(v) {
    var root = h('div', { class: 'visual', testid: 'visual' });
    var meta = [h('b', { text: v.name }), ' baseline ', h('code', { text: v.baseline })];
    if (v.diffPixels !== undefined) meta.push(' · ' + v.diffPixels + ' px differ' + (v.diffRatio !== undefined ? ' (' + (v.diffRatio * 100).toFixed(2) + '%)' : ''));
    if (v.sizes) meta.push(' · expected ' + v.sizes.expected.width + '×' + v.sizes.expected.height + ', actual ' + v.sizes.actual.width + '×' + v.sizes.actual.height);
    if (v.written) meta.push(' · baseline written (' + v.written + ')');
    root.appendChild(h('div', { class: 'visual-meta' }, meta));
    var modes = [];
    if (v.expected && v.actual) modes.push(['sbs', 'Side by side'], ['slider', 'Slider']);
    if (v.diff) modes.push(['diff', 'Diff']);
    if (!modes.length) {
      var imgs = [];
      ['expected', 'actual', 'previous'].forEach(function (k) { if (v[k]) imgs.push(thumb(k, v[k], v.name)); });
      root.appendChild(h('div', { class: 'thumbs' }, imgs));
      return root;
    }
    var view = h('div', { class: 'visual-view', testid: 'visual-view' });
    var tabs = h('div', { class: 'tabs', role: 'tablist' });
    modes.forEach(function (m, i) {
      var b = h('button', { class: 'tab' + (i === 0 ? ' active' : ''), role: 'tab', testid: 'visual-mode-' + m[0], 'data-mode': m[0], text: m[1],
        onclick: function () {
          Array.prototype.forEach.call(tabs.children, function (c) { c.classList.remove('active'); });
          b.classList.add('active');
          showMode(m[0]);
        } });
      tabs.appendChild(b);
    });
    root.appendChild(tabs);
    root.appendChild(view);
    function figure(label, src) {
      return h('figure', {}, h('img', { src: src, alt: label, 'data-kind': label, 'data-full': src, 'data-caption': v.name + ' · ' + label, onclick: function (e) { openFrom(e.currentTarget); } }), h('figcaption', { text: label }));
    }
    function showMode(mode) {
      view.textContent = '';
      view.setAttribute('data-mode', mode);
      if (mode === 'sbs') {
        view.appendChild(h('div', { class: 'sbs' }, figure('expected', v.expected), figure('actual', v.actual), v.diff ? figure('diff', v.diff) : null));
      } else if (mode === 'slider') {
        var top = h('img', { class: 'slider-top', src: v.actual, alt: 'actual', 'data-kind': 'actual' });
        var clip = function (pct) { top.style.clipPath = 'inset(0 ' + (100 - pct) + '% 0 0)'; };
        var range = h('input', { type: 'range', min: 0, max: 100, value: 50, testid: 'visual-slider', 'aria-label': 'actual ↔ expected',
          oninput: function (e) { clip(Number(e.target.value)); } });
        clip(50);
        view.appendChild(h('div', { class: 'slider' },
          h('div', { class: 'slider-stage' }, h('img', { src: v.expected, alt: 'expected', 'data-kind': 'expected' }), top),
          h('div', { class: 'slider-legend' }, h('span', { text: '← actual' }), range, h('span', { text: 'expected →' }))));
      } else {
        view.appendChild(figure('diff', v.diff));
      }
    }
    showMode(modes[0][0]);
    return root;
  }

  window.__bfLayout = function (key, value) {
    layoutCache[key] = value;
    (layoutWaiters[key] || []).forEach(function (fn) { fn(value); });
    delete layoutWaiters[key];
  };

  function loadLayout(key, cb) {
    if (layoutCache[key]) return cb(layoutCache[key]);
    var src = data.layouts && data.layouts[key];
    if (!src) return cb(null);
    var first = !layoutWaiters[key];
    (layoutWaiters[key] = layoutWaiters[key] || []).push(cb);
    if (first) {
      var sc = document.createElement('script');
      sc.src = src;
      sc.onerror = function () { (layoutWaiters[key] || []).forEach(function (fn) { fn(null); }); delete layoutWaiters[key]; };
      document.head.appendChild(sc);
    }
  }

  function layoutBlock(ev, open) {
    var key = ev.snapshot + '\n' + ev.selector;
    var box = h('div', { class: 'layout-lines', testid: 'layout-lines' });
    var details = h('details', { class: 'layout', testid: 'layout' },
      h('summary', {}, 'Layout snapshot (' + ev.format + ') searched for ', h('code', { text: ev.selector }), ' · ', h('a', { href: ev.snapshot, target: '_blank', text: 'raw' })),
      ev.candidates && ev.candidates.length ? h('ol', { class: 'candidates', testid: 'candidates' }, ev.candidates.map(function (c) {
        var bits = [];
        if (c.text) bits.push('text "' + c.text + '"');
        if (c.id) bits.push('id ' + c.id);
        if (c.desc) bits.push('desc "' + c.desc + '"');
        return h('li', {}, h('code', { text: c.tag }), ' ', bits.join(', '));
      })) : h('p', { class: 'muted', text: 'No near candidates.' }),
      box);
    var loaded = false;
    function fill() {
      if (loaded) return;
      loaded = true;
      box.textContent = 'Loading…';
      loadLayout(key, function (p) {
        box.textContent = '';
        if (!p) { box.textContent = 'The snapshot is not in this report.'; return; }
        var frag = document.createDocumentFragment();
        p.lines.forEach(function (l) {
          var row = h('div', { class: 'll' + (l[2] ? ' marked' : ''), style: '--depth:' + l[0] }, l[1]);
          if (l[2]) { row.setAttribute('data-testid', 'layout-mark'); row.appendChild(h('span', { class: 'cand', text: '#' + l[2] })); }
          frag.appendChild(row);
        });
        box.appendChild(frag);
        if (p.truncated) box.appendChild(h('div', { class: 'muted', text: '… truncated' }));
      });
    }
    details.addEventListener('toggle', function () { if (details.open) fill(); });
    if (open) { details.open = true; fill(); }
    return details;
  }

  /** `#action=<actionId>`: the flow and attempt of that action opened, its step shown, and its moment in the video. */
  function openActionFromHash() {
    var m = /^#action=(.+)$/.exec(location.hash);
    if (!m) return;
    var id = decodeURIComponent(m[1]);
    R.flows.some(function (f) {
      return f.attempts.some(function (a) {
        var hit = walk(a.steps, 0, []).filter(function (e) { return e.step.actionId === id; })[0];
        if (!hit) return false;
        var row = listEl.querySelector('[data-testid=flow][data-flow-id="' + f.id + '"]');
        if (!row) return true;
        var head = row.querySelector('.flow-head');
        if (head.getAttribute('aria-expanded') !== 'true') head.click();
        var tab = row.querySelector('[data-testid=attempt-tab][data-attempt="' + a.attempt + '"]');
        if (tab && !tab.classList.contains('active')) tab.click();
        var view = row.querySelector('.attempt-view');
        var step = view && view.querySelector('[data-testid=step][data-step-id="' + hit.step.id + '"]');
        if (step) step.scrollIntoView({ block: 'center' });
        var player = view && view.__player;
        var c = player && player.chapter(hit.step.id);
        if (c) player.seek(c);
        return true;
      });
    });
  }

  // ---- boot ------------------------------------------------------------------------------------

  document.title = (data.title || 'boxflow report') + ' — ' + R.stats.failed + ' failed, ' + R.stats.passed + ' passed';
  app.textContent = '';
  app.appendChild(renderSummary());
  app.appendChild(renderFilters());
  app.appendChild(listEl);
  renderList();
  // Print shows every flow of the list (the screen renders it as it scrolls) and its images, lazy on screen.
  window.addEventListener('beforeprint', function () {
    renderAllFlows();
    Array.prototype.forEach.call(document.querySelectorAll('img[loading=lazy]'), function (img) { img.loading = 'eager'; });
  });
  openActionFromHash();
  window.addEventListener('hashchange', openActionFromHash);
  document.documentElement.setAttribute('data-ready', 'true');
})();
