/**
 * The page's only script: it swaps in the server's fresh HTML for a panel or the service bar
 * when the server's event stream says it changed, and turns the person's typing and clicks
 * into requests to the sandbox, which delivers them to the bindings as the platform would.
 */
export const SANDBOX_SCRIPT = `
(function () {
  'use strict';
  function panelOf(platform) { return document.querySelector('.panel[data-platform="' + platform + '"]'); }
  function personOf(panel) { return panel.querySelector('select[name=person]').value; }
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { j.httpStatus = r.status; return j; }); });
  }
  function report(panel, what, result) {
    var line = panel.querySelector('.last-request');
    line.textContent = what + ': ' + (result.error ? result.error : 'the binding answered ' + result.status);
    line.className = 'last-request ' + (result.error || result.status >= 300 ? 'bad' : 'good');
  }
  function refreshPanel(platform) {
    var panel = panelOf(platform);
    if (!panel) return Promise.resolve();
    return fetch('/panels/' + platform + '?as=' + personOf(panel)).then(function (r) { return r.text(); }).then(function (html) {
      var conversation = panel.querySelector('.conversation');
      var atBottom = conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 40;
      var open = conversation.querySelector('.platform-form');
      var typed = open ? { id: open.dataset.formId, values: fieldsOf(open) } : undefined;
      conversation.innerHTML = html;
      // The same form redrawn (the panel changed under it) keeps what the person typed.
      var fresh = conversation.querySelector('.platform-form');
      if (typed && fresh && fresh.dataset.formId === typed.id) {
        fresh.querySelectorAll('input, textarea').forEach(function (field) {
          if (Object.prototype.hasOwnProperty.call(typed.values, field.name)) field.value = typed.values[field.name];
        });
      }
      if (atBottom) conversation.scrollTop = conversation.scrollHeight;
    });
  }
  function fieldsOf(form) {
    var values = {};
    form.querySelectorAll('input, textarea').forEach(function (field) { values[field.name] = field.value; });
    return values;
  }
  function refreshServices() {
    return fetch('/services').then(function (r) { return r.text(); }).then(function (html) {
      document.getElementById('services').innerHTML = html;
    });
  }
  function refreshAll() {
    document.querySelectorAll('.panel').forEach(function (panel) { refreshPanel(panel.dataset.platform); });
    refreshServices();
  }
  document.addEventListener('click', function (event) {
    var target = event.target.closest('button');
    if (!target) return;
    var panel = target.closest('.panel');
    if (target.classList.contains('form-cancel')) {
      var shown = target.closest('.platform-form');
      post('/api/form/close', { platform: panel.dataset.platform, as: personOf(panel), id: shown.dataset.formId })
        .then(function () { refreshPanel(panel.dataset.platform); });
    } else if (target.classList.contains('chip')) {
      panel.querySelector('textarea').value = target.dataset.text;
      panel.querySelector('textarea').focus();
    } else if (target.classList.contains('action')) {
      target.disabled = true;
      post('/api/click', { platform: panel.dataset.platform, as: personOf(panel), ref: target.dataset.ref })
        .then(function (result) { report(panel, personOf(panel) + ' clicked "' + target.textContent + '"', result); });
    } else if (target.classList.contains('agent')) {
      var answer = panel.querySelector('.agent-answer');
      target.disabled = true;
      answer.textContent = 'the agent waits for an answer in this panel…';
      post('/api/agent', { platform: panel.dataset.platform }).then(function (result) {
        target.disabled = false;
        answer.textContent = 'Claude Code was told (' + result.status + '):\\n' + JSON.stringify(result.body, null, 2);
      });
    } else if (target.dataset.op) {
      target.disabled = true;
      post('/api/services/' + target.dataset.name + '/' + target.dataset.op, {}).then(refreshServices);
    }
  });
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains('platform-form')) return;
    event.preventDefault();
    var panel = form.closest('.panel');
    form.querySelector('.form-submit').disabled = true;
    var title = form.querySelector('h3').firstChild.textContent.trim();
    post('/api/form', { platform: panel.dataset.platform, as: personOf(panel), id: form.dataset.formId, values: fieldsOf(form) })
      .then(function (result) {
        report(panel, personOf(panel) + ' submitted "' + title + '"', result);
        return refreshPanel(panel.dataset.platform);
      });
  });
  document.addEventListener('change', function (event) {
    var panel = event.target.closest('.panel');
    if (panel && event.target.tagName === 'SELECT' && event.target.name === 'person') refreshPanel(panel.dataset.platform);
  });
  document.querySelectorAll('.composer').forEach(function (form) {
    var panel = form.closest('.panel');
    var box = form.querySelector('textarea');
    function send() {
      var text = box.value.trim();
      if (!text) return;
      box.value = '';
      post('/api/say', { platform: panel.dataset.platform, as: personOf(panel), text: text })
        .then(function (result) { report(panel, personOf(panel) + ' sent a message', result); });
    }
    form.addEventListener('submit', function (event) { event.preventDefault(); send(); });
    box.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
    });
  });
  var events = new EventSource('/events');
  events.addEventListener('panel', function (event) { refreshPanel(event.data); });
  events.addEventListener('services', refreshServices);
  events.addEventListener('open', refreshAll);
  document.querySelectorAll('.conversation').forEach(function (c) { c.scrollTop = c.scrollHeight; });
})();
`;
