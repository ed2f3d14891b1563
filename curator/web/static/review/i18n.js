// The review screen's strings in the page's language. The page emits them in JSON data blocks
// (#i18n: {English: translation}, curator/web/i18n.py JS_MESSAGES; #i18n-plurals: the forms of
// the messages with a count, js_plurals); `t` looks one up and fills in %(name)s placeholders.
// A module evaluates once, so every script of the page shares these lookups.

function readJson(id) {
  try { return JSON.parse((document.getElementById(id) || {}).textContent || "{}"); } catch (err) { return {}; }
}

const MESSAGES = readJson("i18n");
const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

// The translation of `msg` (English as the key), with %(name)s filled from `params`.
export function t(msg, params) {
  const text = has(MESSAGES, msg) ? MESSAGES[msg] : msg;
  return text.replace(/%\((\w+)\)s/g, (whole, key) =>
    params && has(params, key) ? String(params[key]) : whole);
}

// Messages with a count (web/i18n.py js_plurals): {English singular: {CLDR category: form}},
// the form chosen by the page language's plural rules (Arabic has six), %(num)s filled with n.
const PLURALS = readJson("i18n-plurals");
const pluralRules = new Intl.PluralRules(document.documentElement.lang || "en");
export function tn(singular, plural, n, params) {
  const forms = has(PLURALS, singular) ? PLURALS[singular] : null;
  const form = forms ? (forms[pluralRules.select(n)] || forms.other) : (n === 1 ? singular : plural);
  return t(form, Object.assign({num: n}, params || {}));
}

// t() as nodes: a parameter that is a Node (an isolate, bidi.js) is placed where its %(name)s is.
export function tNodes(msg, params) {
  const text = has(MESSAGES, msg) ? MESSAGES[msg] : msg;
  const out = document.createDocumentFragment();
  let last = 0;
  text.replace(/%\((\w+)\)s/g, (whole, key, offset) => {
    out.append(text.slice(last, offset));
    const value = params && has(params, key) ? params[key] : whole;
    out.append(value instanceof Node ? value : String(value));
    last = offset + whole.length;
    return whole;
  });
  out.append(text.slice(last));
  return out;
}
