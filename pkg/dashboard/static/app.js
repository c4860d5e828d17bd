// kbox ui: a small single-page dashboard over the JSON API of `kbox ui`.
// Plain JS, no build step, no external resources; charts are inline SVG.
(function () {
  'use strict';
  var info = null;
  var timer = null;
  var SVGNS = 'http://www.w3.org/2000/svg';
  var main = document.getElementById('main');

  function h(tag, attrs) {
    var el = document.createElement(tag);
    for (var k in (attrs || {})) {
      if (k === 'text') el.textContent = attrs[k];
      else if (k === 'cls') { if (attrs[k]) el.className = attrs[k]; }
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) el.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, c) {
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(el, x); }); return; }
    el.appendChild(c.nodeType ? c : document.createTextNode(String(c)));
  }
  function s(tag, attrs) {
    var el = document.createElementNS(SVGNS, tag);
    for (var k in (attrs || {})) { if (k === 'text') el.textContent = attrs[k]; else el.setAttribute(k, attrs[k]); }
    return el;
  }
  function api(path, opts) {
    return fetch(path, opts).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (body) {
        if (!r.ok) { var e = new Error(body.error || ('HTTP ' + r.status)); e.status = r.status; throw e; }
        return body;
      });
    });
  }
  function post(path, body) {
    return api(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Kbox-Request': '1' }, body: JSON.stringify(body) });
  }
  function enc(x) { return encodeURIComponent(x); }
  function fmtNum(n) { return n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US', { maximumFractionDigits: 1 }); }
  function fmtBytes(n) {
    if (n === null || n === undefined) return '–';
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0, v = Number(n);
    while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (i === 0 ? v.toFixed(0) : v.toFixed(1)) + ' ' + u[i];
  }
  function fmtMs(ms) {
    if (ms === null || ms === undefined) return '–';
    if (ms < 1000) return ms + ' ms';
    var sec = ms / 1000;
    if (sec < 120) return sec.toFixed(1) + ' s';
    if (sec < 7200) return (sec / 60).toFixed(1) + ' min';
    return (sec / 3600).toFixed(1) + ' h';
  }
  function list(v) { return (v || []).join(','); }
  function errorBox(e) { return h('div', { cls: 'error' }, String(e && e.message || e)); }
  function table(cols, rows) {
    return h('table', null,
      h('thead', null, h('tr', null, cols.map(function (c) { return h('th', { cls: c.num ? 'num' : null }, c.t); }))),
      h('tbody', null, rows.map(function (r) {
        return h('tr', null, cols.map(function (c) { return h('td', { cls: c.num ? 'num' : null }, c.f(r)); }));
      })));
  }
  function bar(pct) {
    var svg = s('svg', { width: 120, height: 10, class: 'pct' });
    svg.appendChild(s('rect', { x: 0, y: 0, width: 120, height: 10, fill: '#e4e8ef' }));
    if (pct !== null && pct !== undefined) svg.appendChild(s('rect', { x: 0, y: 0, width: Math.max(0, Math.min(120, pct * 1.2)), height: 10, fill: pct >= 90 ? '#b42318' : '#4f7bd9' }));
    return svg;
  }

  // route: [cluster, section, arg] from the hash.
  function route() {
    var p = location.hash.replace(/^#\/?/, '').split('/');
    if (p[0] !== 'c' || !p[1]) return { section: 'clusters' };
    var q = {};
    var last = p[p.length - 1].split('?');
    p[p.length - 1] = last[0];
    (last[1] || '').split('&').forEach(function (kv) { if (kv) { var a = kv.split('='); q[a[0]] = decodeURIComponent(a[1] || ''); } });
    return { cluster: decodeURIComponent(p[1]), section: p[2] || 'brokers', arg: p[3] ? decodeURIComponent(p.slice(3).join('/')) : '', q: q };
  }
  var sections = [['brokers', 'Brokers'], ['topics', 'Topics'], ['groups', 'Consumer groups'], ['rates', 'Live rates'], ['logdirs', 'Log dirs']];

  function chrome(r) {
    var nav = document.getElementById('clusters');
    nav.textContent = '';
    info.clusters.forEach(function (c) {
      var sec0 = { topic: 'topics', messages: 'topics', group: 'groups' }[r.section] || (r.cluster ? r.section : 'brokers');
      add(nav, h('a', { href: '#/c/' + enc(c.name) + '/' + sec0, cls: c.name === r.cluster ? 'on' : '', 'data-cluster': c.name, title: c.bootstrap_servers.join(',') + ' (' + c.security_protocol + ')' }, c.name));
    });
    var mode = document.getElementById('mode');
    mode.textContent = info.allow_writes ? 'writes enabled' : 'read-only';
    mode.className = info.allow_writes ? 'writes' : '';
    var sec = document.getElementById('sections');
    sec.textContent = '';
    add(sec, h('a', { href: '#/', cls: r.section === 'clusters' ? 'on' : '' }, 'All clusters'));
    if (r.cluster) {
      sections.forEach(function (x) {
        var on = r.section === x[0] || ((r.section === 'topic' || r.section === 'messages') && x[0] === 'topics') || (r.section === 'group' && x[0] === 'groups');
        add(sec, h('a', { href: '#/c/' + enc(r.cluster) + '/' + x[0], cls: on ? 'on' : '' }, x[1]));
      });
    }
  }

  function render() {
    if (timer) { clearInterval(timer); timer = null; }
    document.body.removeAttribute('data-ready');
    var r = route();
    chrome(r);
    main.textContent = '';
    main.appendChild(h('p', { cls: 'muted' }, 'Loading…'));
    var pages = { clusters: pageClusters, brokers: pageBrokers, topics: pageTopics, topic: pageTopic, messages: pageMessages, groups: pageGroups, group: pageGroup, rates: pageRates, logdirs: pageLogDirs };
    var fn = pages[r.section];
    var known = !r.cluster || info.clusters.some(function (c) { return c.name === r.cluster; });
    var p = (!fn || !known) ? Promise.reject(new Error('no such page')) : fn(r);
    p.then(function (nodes) { main.textContent = ''; add(main, nodes); },
      function (e) { main.textContent = ''; add(main, errorBox(e)); })
      .then(function () { document.body.setAttribute('data-ready', '1'); document.body.setAttribute('data-page', r.section); });
  }

  function base(r) { return '/api/c/' + enc(r.cluster); }

  function pageClusters() {
    return api('/api/clusters').then(function (rep) {
      return [h('h1', null, 'Clusters ', h('span', { cls: rep.healthy ? 'ok' : 'bad' }, rep.healthy ? 'all healthy' : 'not all healthy')),
        h('div', { cls: 'cards' }, rep.clusters.map(function (c) {
          var view = info.clusters.filter(function (x) { return x.name === c.name; })[0] || {};
          // An unreachable cluster's counts are unknown, not 0.
          var known = function (v) { return c.reachable ? v : '–'; };
          return h('div', { cls: 'card cluster', 'data-cluster': c.name },
            h('h2', null, h('a', { href: '#/c/' + enc(c.name) + '/brokers' }, c.name), ' ', h('span', { cls: c.healthy ? 'ok' : 'bad' }, c.healthy ? 'healthy' : (c.reachable ? 'unhealthy' : 'unreachable'))),
            c.reachable ? null : h('p', { cls: 'bad' }, c.error),
            h('dl', null,
              h('dt', null, 'Bootstrap'), h('dd', null, (view.bootstrap_servers || []).join(', ')),
              h('dt', null, 'Security'), h('dd', null, view.security_protocol || ''),
              h('dt', null, 'Brokers up'), h('dd', null, known(c.brokers_up + ' / ' + c.brokers_expected)),
              h('dt', null, 'Controller'), h('dd', null, known(c.controller === null ? 'none' : c.controller)),
              h('dt', null, 'Metadata version'), h('dd', { cls: c.metadata_version && (c.metadata_version.upgrade_available || c.metadata_version.brokers_disagree) ? 'warn' : null }, known(c.metadata_version ? c.metadata_version.summary : 'unknown')),
              h('dt', null, 'Topics / partitions'), h('dd', null, known(c.topics + ' / ' + c.partitions)),
              h('dt', null, 'Under-replicated'), h('dd', null, known(c.under_replicated_partitions)),
              h('dt', null, 'Under min ISR'), h('dd', null, known(c.under_min_isr_partitions)),
              h('dt', null, 'Offline'), h('dd', null, known(c.offline_partitions)),
              h('dt', null, 'Non-preferred leaders'), h('dd', null, known(c.non_preferred_leader_partitions)),
              h('dt', null, 'Produce / consume'), h('dd', null, fmtNum(c.produce_records_per_sec) + ' / ' + fmtNum(c.consume_records_per_sec) + ' rec/s'),
              h('dt', null, 'Most lagging group'), h('dd', null, c.lagging_groups && c.lagging_groups.length ? c.lagging_groups[0].group + ': ' + fmtNum(c.lagging_groups[0].lag) + ' rec, ' + fmtMs(c.lagging_groups[0].time_lag_ms) : 'none')),
            (c.problems || []).length ? h('ul', { cls: 'bad' }, c.problems.map(function (p) { return h('li', null, p); })) : null);
        }))];
    });
  }

  function pageBrokers(r) {
    return api(base(r) + '/brokers').then(function (d) {
      var st = d.status;
      if (!st.reachable) return [h('h1', null, r.cluster + ': brokers'), errorBox(st.error)];
      var host = {}, lead = {};
      d.hosts.forEach(function (x) { host[x.id] = x; });
      ((d.leaders && d.leaders.brokers) || []).forEach(function (x) { lead[x.broker] = x; });
      var out = [h('h1', null, r.cluster + ': brokers'),
        h('p', null, 'Cluster ', st.cluster_id, ' · controller ', st.controller === null ? 'none' : st.controller, ' · ', st.brokers_up, ' of ', st.brokers_expected, ' up'),
        table([{ t: 'Broker', f: function (b) { return b.id; } },
          { t: 'Status', f: function (b) { return h('span', { cls: b.up ? 'ok' : 'bad' }, b.up ? 'up' : 'down'); } },
          { t: 'Why down', f: function (b) { return b.down_reason || ''; } },
          { t: 'Address', f: function (b) { return host[b.id] ? host[b.id].host + ':' + host[b.id].port : (b.address || ''); } },
          { t: 'Rack', f: function (b) { return host[b.id] && host[b.id].rack || ''; } },
          { t: 'Leaders', num: 1, f: function (b) { return lead[b.id] ? lead[b.id].leaders_before : '–'; } },
          { t: 'Preferred', num: 1, f: function (b) { return lead[b.id] ? lead[b.id].preferred_leaders : '–'; } },
          { t: 'Log bytes', num: 1, f: function (b) { return fmtBytes(b.log_bytes); } },
          { t: 'Disk used', f: function (b) { return [bar(b.disk_used_percent), b.disk_used_percent === null ? '–' : b.disk_used_percent + ' %']; } }], st.brokers)];
      if (st.problems.length) out.push(h('ul', { cls: 'bad' }, st.problems.map(function (p) { return h('li', null, p); })));
      d.errors.forEach(function (e) { out.push(errorBox(e)); });
      out.push(h('p', null, st.non_preferred_leader_partitions + ' partition(s) led by a broker other than their preferred replica.'));
      if (info.allow_writes) out.push(writeForm(r, 'elect-preferred', 'Preferred leader election', [{ n: 'topics', p: 'topics (comma-separated, empty: all)' }],
        function (v) { return { topics: v.topics ? v.topics.split(',').map(function (x) { return x.trim(); }) : [] }; }));
      return out;
    });
  }

  function pageTopics(r) {
    return api(base(r) + '/topics').then(function (d) {
      var out = [h('h1', null, r.cluster + ': topics (' + d.topics.length + ')')];
      if (info.allow_writes) out.push(writeForm(r, 'create-topic', 'Create topic', [{ n: 'topic', p: 'name' }, { n: 'partitions', p: 'partitions', type: 'number' }, { n: 'replication_factor', p: 'replication factor', type: 'number' }],
        function (v) { return { topic: v.topic, partitions: Number(v.partitions || 0), replication_factor: Number(v.replication_factor || 0) }; }));
      (d.size_errors || []).forEach(function (e) { out.push(errorBox('broker ' + e.broker + ': ' + e.error)); });
      out.push(table([{ t: 'Topic', f: function (t) { return h('a', { href: '#/c/' + enc(r.cluster) + '/topic/' + enc(t.name) }, t.name); } },
        { t: 'Partitions', num: 1, f: function (t) { return fmtNum(t.partitions); } },
        { t: 'RF', num: 1, f: function (t) { return t.replication_factor; } },
        { t: 'Under-replicated', num: 1, f: function (t) { return t.under_replicated_partitions; } },
        { t: 'Offline', num: 1, f: function (t) { return t.offline_partitions; } },
        { t: 'Size', num: 1, f: function (t) { return fmtBytes(t.logical_bytes); } },
        { t: 'On disk', num: 1, f: function (t) { return fmtBytes(t.physical_bytes); } }], d.topics));
      return out;
    });
  }

  function pageTopic(r) {
    var off = Number(r.q.offset || 0), lim = 100, problems = r.q.problems === '1';
    return api(base(r) + '/topics/' + enc(r.arg) + '?offset=' + off + '&limit=' + lim + (problems ? '&problems=1' : '')).then(function (d) {
      var t = d.topic;
      var link = function (o, pr) { return '#/c/' + enc(r.cluster) + '/topic/' + enc(r.arg) + '?offset=' + o + (pr ? '&problems=1' : ''); };
      var out = [h('h1', null, r.cluster + ': topic ' + t.name),
        h('p', null, h('a', { href: '#/c/' + enc(r.cluster) + '/messages/' + enc(t.name), id: 'messages-link' }, 'Messages ›')),
        h('div', { cls: 'cards' }, h('div', { cls: 'card' }, h('dl', null,
          h('dt', null, 'Topic id'), h('dd', null, t.id),
          h('dt', null, 'Partitions'), h('dd', null, fmtNum(t.partition_count)),
          h('dt', null, 'Replication factor'), h('dd', null, t.replication_factor),
          h('dt', null, 'min.insync.replicas'), h('dd', null, t.min_insync_replicas === null ? '–' : t.min_insync_replicas),
          h('dt', null, 'Under-replicated'), h('dd', null, t.under_replicated_partitions),
          h('dt', null, 'Under min ISR'), h('dd', null, t.under_min_isr_partitions),
          h('dt', null, 'Offline'), h('dd', null, t.offline_partitions),
          h('dt', null, 'Records'), h('dd', null, fmtNum(t.records)),
          h('dt', null, 'Size (leaders)'), h('dd', null, fmtBytes(t.logical_bytes)),
          h('dt', null, 'On disk (all replicas)'), h('dd', null, fmtBytes(t.physical_bytes)))))];
      if (info.allow_writes) {
        out.push(writeForm(r, 'add-partitions', 'Add partitions', [{ n: 'partitions', p: 'new total', type: 'number' }], function (v) { return { topic: t.name, partitions: Number(v.partitions) }; }));
        out.push(writeForm(r, 'alter-config', 'Change config', [{ n: 'key', p: 'config name' }, { n: 'value', p: 'value (empty: delete)' }],
          function (v) { var b = { resource_type: 'topic', resource_name: t.name, set: {}, delete: [] }; if (v.value === '') b.delete.push(v.key); else b.set[v.key] = v.value; return b; }));
      }
      out.push(h('h2', null, 'Partitions'));
      out.push(h('div', { cls: 'pager' },
        h('a', { href: off > 0 ? link(Math.max(0, off - lim), problems) : null }, h('button', { disabled: off === 0 }, '‹ previous')),
        h('span', null, d.total ? (off + 1) + '–' + Math.min(off + lim, d.total) + ' of ' + fmtNum(d.total) : 'none'),
        h('a', { href: off + lim < d.total ? link(off + lim, problems) : null }, h('button', { disabled: off + lim >= d.total }, 'next ›')),
        h('a', { href: link(0, !problems) }, problems ? 'show all partitions' : 'show only unhealthy partitions')));
      out.push(table([{ t: 'Partition', num: 1, f: function (p) { return p.partition; } },
        { t: 'Leader', num: 1, f: function (p) { return p.leader === null ? 'none' : p.leader; } },
        { t: 'Replicas', f: function (p) { return list(p.replicas); } },
        { t: 'ISR', f: function (p) { return list(p.isr); } },
        { t: 'Status', f: function (p) { return p.unavailable ? h('span', { cls: 'bad' }, 'offline') : p.under_replicated ? h('span', { cls: 'bad' }, 'under-replicated') : h('span', { cls: 'ok' }, 'ok'); } },
        { t: 'Start offset', num: 1, f: function (p) { return fmtNum(p.log_start_offset); } },
        { t: 'End offset', num: 1, f: function (p) { return fmtNum(p.high_watermark); } },
        { t: 'Size', num: 1, f: function (p) { var sz = p.replica_size_bytes || {}; return p.leader !== null && sz[p.leader] !== undefined ? fmtBytes(sz[p.leader]) : '–'; } }], d.partitions));
      out.push(h('h2', null, 'Configs'));
      if (d.configs_error) out.push(errorBox(d.configs_error));
      out.push(table([{ t: 'Name', f: function (c) { return c.name; } },
        { t: 'Value', f: function (c) { return c.sensitive ? '(sensitive)' : (c.value === null ? '(null)' : c.value); } },
        { t: 'Source', f: function (c) { return c.source.replace(/_/g, ' '); } },
        { t: 'Default', f: function (c) { return c.sensitive || c.default === null ? '' : c.default; } }], d.configs));
      return out;
    });
  }

  // verdictCell shows a Burrow verdict (groups lag --watch); "–" while the
  // window of commits is too short to judge.
  function verdictCell(v) {
    if (!v) return h('span', { cls: 'muted', title: 'not judged yet: it takes commits seen over time' }, '–');
    return h('span', { cls: v === 'OK' ? 'ok' : 'bad' }, v);
  }

  function pageGroups(r) {
    var box = h('div', null);
    function draw(d) {
      box.textContent = '';
      add(box, d.groups.length ? table([{ t: 'Group', f: function (g) { return h('a', { href: '#/c/' + enc(r.cluster) + '/group/' + enc(g.group) }, g.group); } },
          { t: 'State', f: function (g) { return g.state; } },
          { t: 'Type', f: function (g) { return g.type; } },
          { t: 'Partitions', num: 1, f: function (g) { return g.partitions; } },
          { t: 'Lag (records)', num: 1, f: function (g) { return fmtNum(g.lag); } },
          { t: 'Lag (time)', num: 1, f: function (g) { return g.caught_up ? 'caught up' : fmtMs(g.time_lag_ms); } },
          { t: 'Verdict', f: function (g) { return verdictCell(g.verdict); } },
          { t: 'Error', f: function (g) { return g.error || ''; } }], d.groups) : h('p', { cls: 'muted' }, 'No consumer groups with committed offsets.'));
    }
    return api(base(r) + '/groups').then(function (d) {
      draw(d);
      // Each load is a sample of the commits the verdicts are judged on.
      timer = setInterval(function () {
        api(base(r) + '/groups').then(draw, function (e) { box.textContent = ''; add(box, errorBox(e)); });
      }, 5000);
      return [h('h1', null, r.cluster + ': consumer groups'),
        h('p', { cls: 'muted' }, 'Verdicts (OK, WARN, STALL, STOP, REWIND) are judged, as kbox groups lag --watch does, over the last 10 commits seen while this page is open; it reloads every 5 s.'), box];
    });
  }

  function pageGroup(r) {
    return api(base(r) + '/groups/' + enc(r.arg)).then(function (g) {
      var out = [h('h1', null, r.cluster + ': group ' + g.group),
        h('p', null, 'State ', g.state, ' · lag ', fmtNum(g.lag), ' records · ', g.caught_up ? 'caught up' : fmtMs(g.time_lag_ms) + ' behind', ' · verdict ', verdictCell(g.verdict))];
      if (info.allow_writes) out.push(writeForm(r, 'reset-offsets', 'Reset offsets', [{ n: 'to', p: 'to', options: ['earliest', 'latest', 'offset', 'shift-by', 'datetime'] }, { n: 'value', p: 'offset / shift / ISO time' }, { n: 'topics', p: 'topics (empty: all)' }],
        function (v) {
          var b = { group: g.group, to: v.to, topics: v.topics ? v.topics.split(',').map(function (x) { return x.trim(); }) : [] };
          if (v.to === 'offset' || v.to === 'shift-by') b.offset = Number(v.value);
          if (v.to === 'datetime') b.timestamp_ms = Date.parse(v.value);
          return b;
        }));
      out.push(table([{ t: 'Topic', f: function (p) { return p.topic; } },
        { t: 'Partition', num: 1, f: function (p) { return p.partition; } },
        { t: 'Committed', num: 1, f: function (p) { return fmtNum(p.committed_offset); } },
        { t: 'Log end', num: 1, f: function (p) { return fmtNum(p.log_end_offset); } },
        { t: 'Lag', num: 1, f: function (p) { return fmtNum(p.lag); } },
        { t: 'Lag (time)', num: 1, f: function (p) { return p.caught_up ? 'caught up' : fmtMs(p.time_lag_ms); } },
        { t: 'Verdict', f: function (p) { return verdictCell(p.verdict); } }], g.partitions));
      return out;
    });
  }

  // chart draws series [{name, pts: [[t, v]]}] as an inline SVG line chart.
  var colors = ['#4f7bd9', '#d9822b', '#1a7f37', '#b42318', '#7a4fd9', '#2b9fd9'];
  function chart(title, series, fmt) {
    var W = 640, H = 220, L = 70, R = 150, T = 24, B = 28;
    var svg = s('svg', { class: 'chart', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': title });
    svg.appendChild(s('text', { x: L, y: 16, text: title, 'font-weight': '600' }));
    var t0 = Infinity, t1 = -Infinity, vmax = 0;
    series.forEach(function (se) { se.pts.forEach(function (p) { t0 = Math.min(t0, p[0]); t1 = Math.max(t1, p[0]); vmax = Math.max(vmax, p[1]); }); });
    if (!isFinite(t0)) { svg.appendChild(s('text', { x: L, y: H / 2, text: 'waiting for two samples…' })); return svg; }
    if (t1 === t0) t1 = t0 + 1;
    if (vmax <= 0) vmax = 1;
    var x = function (t) { return L + (t - t0) / (t1 - t0) * (W - L - R); };
    var y = function (v) { return H - B - v / vmax * (H - T - B); };
    for (var i = 0; i <= 4; i++) {
      var v = vmax * i / 4;
      svg.appendChild(s('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
      svg.appendChild(s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', text: fmt(v) }));
    }
    svg.appendChild(s('text', { x: L, y: H - 8, text: new Date(t0).toLocaleTimeString() }));
    svg.appendChild(s('text', { x: W - R, y: H - 8, 'text-anchor': 'end', text: new Date(t1).toLocaleTimeString() }));
    series.forEach(function (se, k) {
      var c = colors[k % colors.length];
      svg.appendChild(s('polyline', { fill: 'none', stroke: c, 'stroke-width': 2, points: se.pts.map(function (p) { return x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1); }).join(' ') }));
      svg.appendChild(s('rect', { x: W - R + 10, y: T + k * 16, width: 10, height: 10, fill: c }));
      svg.appendChild(s('text', { x: W - R + 24, y: T + k * 16 + 9, text: se.name.length > 18 ? se.name.slice(0, 17) + '…' : se.name }));
    });
    return svg;
  }

  function pageRates(r) {
    var box = h('div', { id: 'rates' });
    function draw(d) {
      box.textContent = '';
      var fr = d.frames;
      if (d.error) add(box, errorBox(d.error));
      var totalRec = { name: 'all topics', pts: fr.map(function (f) { return [Date.parse(f.time), f.records_per_sec]; }) };
      var totalBytes = { name: 'all topics', pts: fr.filter(function (f) { return f.bytes_per_sec !== null; }).map(function (f) { return [Date.parse(f.time), f.bytes_per_sec]; }) };
      var last = fr.length ? fr[fr.length - 1] : null;
      var top = last ? last.topics.slice(0, 5).map(function (t) { return t.topic; }) : [];
      var per = function (name, key) {
        return { name: name, pts: fr.map(function (f) { var t = f.topics.filter(function (x) { return x.topic === name; })[0]; return t && t[key] !== null ? [Date.parse(f.time), t[key]] : null; }).filter(Boolean) };
      };
      add(box, h('p', { cls: 'muted' }, 'Sampled every ' + (d.interval_ms / 1000) + ' s from end offsets and log-dir sizes (no JMX); ' + fr.length + ' interval(s); last sample took ' + d.sample_ms + ' ms.'));
      add(box, chart('records/s in', [totalRec].concat(top.map(function (n) { return per(n, 'records_per_sec'); })), fmtNum));
      add(box, chart('bytes/s in (leader log growth)', [totalBytes].concat(top.map(function (n) { return per(n, 'bytes_per_sec'); })), fmtBytes));
      if (last) {
        add(box, h('h2', null, 'Topics, last interval'));
        add(box, table([{ t: 'Topic', f: function (t) { return t.topic; } }, { t: 'Partitions', num: 1, f: function (t) { return t.partitions; } },
          { t: 'Records/s', num: 1, f: function (t) { return fmtNum(t.records_per_sec); } }, { t: 'Bytes/s', num: 1, f: function (t) { return fmtBytes(t.bytes_per_sec); } }], last.topics));
        add(box, h('h2', null, 'Brokers, last interval'));
        add(box, table([{ t: 'Broker', f: function (b) { return b.broker; } }, { t: 'Leads', num: 1, f: function (b) { return b.leader_partitions; } },
          { t: 'Records/s (led)', num: 1, f: function (b) { return fmtNum(b.records_per_sec); } }, { t: 'Log bytes/s', num: 1, f: function (b) { return fmtBytes(b.bytes_per_sec); } }], last.brokers));
      }
    }
    return api(base(r) + '/rates').then(function (d) {
      draw(d);
      timer = setInterval(function () {
        api(base(r) + '/rates').then(draw, function (e) { box.textContent = ''; add(box, errorBox(e)); });
      }, Math.max(1000, d.interval_ms));
      return [h('h1', null, r.cluster + ': live rates'), box];
    });
  }

  function pageLogDirs(r) {
    return api(base(r) + '/logdirs').then(function (d) {
      var out = [h('h1', null, r.cluster + ': log dirs'),
        table([{ t: 'Broker', f: function (b) { return b.broker; } }, { t: 'Host', f: function (b) { return b.host; } },
          { t: 'Dirs', num: 1, f: function (b) { return b.dirs; } }, { t: 'Partitions', num: 1, f: function (b) { return fmtNum(b.partitions); } },
          { t: 'Size', num: 1, f: function (b) { return fmtBytes(b.size_bytes); } }, { t: 'Volume', num: 1, f: function (b) { return fmtBytes(b.total_bytes); } },
          { t: 'Used', f: function (b) { return [bar(b.used_percent), b.used_percent === null ? '–' : b.used_percent.toFixed(1) + ' %']; } }], d.brokers),
        d.brokers.some(function (b) { return b.dirs > 1; }) ? h('p', { cls: 'muted' }, 'Volume and Used of a broker with several dirs are its fullest dir\'s volume: dirs may share a volume, so volumes are not summed.') : null,
        h('h2', null, 'Directories'),
        table([{ t: 'Broker', f: function (x) { return x.broker; } }, { t: 'Dir', f: function (x) { return x.dir; } },
          { t: 'Partitions', num: 1, f: function (x) { return fmtNum(x.partitions); } }, { t: 'Size', num: 1, f: function (x) { return fmtBytes(x.size_bytes); } },
          { t: 'Usable', num: 1, f: function (x) { return fmtBytes(x.usable_bytes); } }, { t: 'Error', f: function (x) { return x.error || ''; } }], d.dirs)];
      d.failed_brokers.forEach(function (f) { out.push(errorBox('broker ' + f.broker + ': ' + f.error)); });
      return out;
    });
  }

  // pageMessages: one page of a topic's records, read by the server
  // (bounded in records, bytes and records scanned). Every key, value and
  // header is set as text, never as markup.
  function pageMessages(r) {
    var q = r.q, qs = [];
    ['start', 'offset', 'timestamp_ms', 'partitions', 'key', 'value', 'header', 'from', 'to', 'cursor', 'limit', 'scan'].forEach(function (k) { if (q[k]) qs.push(k + '=' + enc(q[k])); });
    var link = function (extra) {
      var o = {}; for (var k in q) if (k !== 'cursor') o[k] = q[k];
      for (var k2 in extra) o[k2] = extra[k2];
      var parts = []; for (var k3 in o) if (o[k3] !== '' && o[k3] !== undefined) parts.push(k3 + '=' + enc(o[k3]));
      return '#/c/' + enc(r.cluster) + '/messages/' + enc(r.arg) + (parts.length ? '?' + parts.join('&') : '');
    };
    return api(base(r) + '/topics/' + enc(r.arg) + '/messages' + (qs.length ? '?' + qs.join('&') : '')).then(function (d) {
      var inputs = {};
      // from and to travel as Unix milliseconds (the ISO time typed, read
      // by the browser: local time unless it names a zone); text that is
      // not a time is sent as is, for the server to refuse.
      var isoOf = function (v) { var d = new Date(Number(v)); return /^-?[0-9]+$/.test(v || '') && !isNaN(d.getTime()) ? d.toISOString() : (v || ''); };
      var msOf = function (v) { v = v.trim(); if (v === '' || /^-?[0-9]+$/.test(v)) return v; var t = Date.parse(v); return isNaN(t) ? v : String(t); };
      var field = function (n, p, v) { inputs[n] = h('input', { name: n, placeholder: p, value: v || '' }); return inputs[n]; };
      var start = h('select', { name: 'start' }, ['newest', 'oldest', 'offset', 'timestamp'].map(function (o) { return h('option', { value: o, selected: (q.start || 'newest') === o ? 'selected' : null }, o); }));
      var form = h('form', { cls: 'filters', id: 'messages-form' }, start,
        field('at', 'offset or ISO time', q.offset || (q.timestamp_ms ? new Date(Number(q.timestamp_ms)).toISOString() : '')),
        field('partitions', 'partitions (e.g. 0,2)', q.partitions), field('key', 'key contains', q.key), field('value', 'value contains', q.value),
        field('header', 'header NAME or NAME=text', q.header), field('from', 'from ISO time (inclusive)', isoOf(q.from)), field('to', 'to ISO time (exclusive)', isoOf(q.to)),
        h('button', { type: 'submit' }, 'Show'));
      form.addEventListener('submit', function (ev) {
        ev.preventDefault();
        var o = { start: start.value, partitions: inputs.partitions.value.trim(), key: inputs.key.value, value: inputs.value.value, header: inputs.header.value,
          from: msOf(inputs.from.value), to: msOf(inputs.to.value) };
        if (start.value === 'offset') o.offset = inputs.at.value.trim();
        if (start.value === 'timestamp') { var ms = Date.parse(inputs.at.value); if (!isNaN(ms)) o.timestamp_ms = String(ms); }
        location.hash = link2(o);
      });
      var link2 = function (o) {
        var parts = []; for (var k in o) if (o[k]) parts.push(k + '=' + enc(o[k]));
        return '#/c/' + enc(r.cluster) + '/messages/' + enc(r.arg) + (parts.length ? '?' + parts.join('&') : '');
      };
      var stopped = { limit: 'page full', end: 'end of the topic', scan_limit: 'scan limit reached', bytes: 'byte cap reached' }[d.stopped] || d.stopped;
      var out = [h('h1', null, r.cluster + ': messages of ', h('a', { href: '#/c/' + enc(r.cluster) + '/topic/' + enc(r.arg) }, r.arg)), form,
        h('p', { cls: 'muted', id: 'messages-note' }, d.messages.length + ' record(s) · scanned ' + fmtNum(d.scanned) + ' record(s) · ' + fmtBytes(d.bytes) + ' · ' + stopped +
          (q.key || q.value || q.header || q.from || q.to ? ' (filters match the decoded text; a scan reads at most ' + fmtNum(Number(q.scan) || 10000) + ' records per page)' : '')),
        h('div', { cls: 'pager' }, d.next ? h('a', { href: link({ cursor: d.next }), id: 'messages-next' }, h('button', null, (q.start || 'newest') === 'newest' ? 'older ›' : 'next ›')) : null)];
      var text = function (f) {
        if (f.text === null || f.text === undefined) return h('span', { cls: 'muted' }, 'null');
        var t = f.text;
        if (f.format !== 'bytes' && f.format !== 'string') { try { t = JSON.stringify(JSON.parse(t), null, 2); } catch (e) { /* shown as is */ } }
        return [h('pre', { cls: 'record' }, t), f.truncated ? h('span', { cls: 'muted' }, '… cut at 16 KiB of ' + fmtBytes(f.size_bytes)) : null,
          f.error ? h('span', { cls: 'bad' }, f.error) : null];
      };
      var fmtInfo = function (f) { return f.format + (f.schema_id ? ' #' + f.schema_id : '') + (f.subject ? ' ' + f.subject : ''); };
      out.push(d.messages.length ? table([{ t: 'Partition', num: 1, f: function (m) { return m.partition; } },
        { t: 'Offset', num: 1, f: function (m) { return m.offset; } },
        { t: 'Time', f: function (m) { return new Date(m.timestamp_ms).toISOString(); } },
        { t: 'Key', f: function (m) { return text(m.key); } },
        { t: 'Value', f: function (m) { return [h('span', { cls: 'muted' }, fmtInfo(m.value)), text(m.value)]; } },
        { t: 'Headers', f: function (m) { return m.headers.map(function (x) { return h('div', null, x.key + ': ', text(x.value)); }); } }], d.messages)
        : h('p', { cls: 'muted' }, 'No records.'));
      if (info.allow_writes) out.push(writeForm(r, 'produce', 'Produce a record', [{ n: 'partition', p: 'partition (empty: any)', type: 'number' }, { n: 'key', p: 'key (empty: null)' }, { n: 'value', p: 'value' }],
        function (v) { return { topic: r.arg, partition: v.partition === '' ? -1 : Number(v.partition), key: v.key === '' ? null : v.key, value: v.value }; }));
      return out;
    });
  }

  // writeForm: a write in two steps. Preview sends the request (the server
  // validates it or plans it, changes nothing, and returns a confirm
  // token); Confirm applies exactly what was previewed.
  function writeForm(r, op, title, fields, body) {
    var inputs = {};
    var result = h('div', { cls: 'result' });
    var form = h('form', { cls: 'write', id: 'write-' + op, 'data-op': op }, h('b', null, title),
      fields.map(function (f) {
        var el = f.options ? h('select', { name: f.n }, f.options.map(function (o) { return h('option', { value: o }, o); }))
          : h('input', { name: f.n, placeholder: f.p, type: f.type || 'text', min: f.type === 'number' ? 0 : null });
        inputs[f.n] = el;
        return el;
      }),
      h('button', { type: 'submit' }, 'Preview'), result);
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var v = {};
      for (var k in inputs) v[k] = inputs[k].value;
      result.textContent = '';
      post(base(r) + '/write/' + op, body(v)).then(function (p) {
        var confirm = h('button', { type: 'button', cls: 'danger' }, 'Confirm ' + title.toLowerCase());
        var cancel = h('button', { type: 'button' }, 'Cancel');
        add(result, [h('pre', { cls: 'preview' }, JSON.stringify(p.preview, null, 2)), confirm, ' ', cancel]);
        cancel.addEventListener('click', function () { result.textContent = ''; });
        confirm.addEventListener('click', function () {
          confirm.disabled = true;
          post(base(r) + '/write/' + op, { confirm: p.confirm_token }).then(function (d) {
            result.textContent = '';
            add(result, [h('p', { cls: 'ok' }, 'Applied.'), h('pre', { cls: 'preview' }, JSON.stringify(d.result, null, 2))]);
          }, function (e) { result.textContent = ''; add(result, errorBox(e)); });
        });
      }, function (e) { add(result, errorBox(e)); });
    });
    return form;
  }

  window.addEventListener('hashchange', render);
  api('/api/info').then(function (d) {
    info = d;
    document.title = 'kbox ui ' + (d.version || '');
    render();
  }, function (e) { main.textContent = ''; add(main, errorBox(e)); document.body.setAttribute('data-ready', '1'); });
})();
