// Records script errors and console.error calls in #kbox-errors, so a
// headless browser's DOM dump shows them (the integration test reads it).
(function () {
  var errs = [];
  function record(msg) {
    errs.push(String(msg));
    var el = document.getElementById('kbox-errors');
    if (el) { el.textContent = errs.join('\n'); el.hidden = false; }
  }
  window.kboxErrors = errs;
  window.addEventListener('error', function (e) { record('error: ' + (e.message || e.type) + (e.filename ? ' at ' + e.filename + ':' + e.lineno : '')); });
  window.addEventListener('unhandledrejection', function (e) { record('unhandled rejection: ' + (e.reason && e.reason.message || e.reason)); });
  window.addEventListener('securitypolicyviolation', function (e) { record('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI); });
  var orig = console.error;
  console.error = function () { record(Array.prototype.join.call(arguments, ' ')); return orig.apply(console, arguments); };
})();
