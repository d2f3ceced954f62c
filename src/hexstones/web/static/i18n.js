// The page's language: the texts the scripts write, from the same gettext catalogue as the
// server's (the page embeds its language's entries; English, the msgids' language, has
// none). t("Move {n}", { n: 3 }) fills {name} placeholders; numbers and dates are written
// by Intl in the page's language.
const embedded = document.getElementById("i18n-catalogue");
const catalogue = embedded ? JSON.parse(embedded.textContent) : { messages: {}, plural: { one: 0, other: 1 } };

export const lang = document.documentElement.lang || "en";
const pluralRules = new Intl.PluralRules(lang);

function fill(text, values) {
  if (!values) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// ``msgid`` in the page's language, its {placeholders} filled from ``values``.
export function t(msgid, values) {
  const found = catalogue.messages[msgid];
  return fill(typeof found === "string" && found ? found : msgid, values);
}

// The form of ``singular``/``plural`` for ``n`` (n is also the placeholder {n}).
export function tn(singular, plural, n, values) {
  const all = { n: formatNumber(n), ...values };
  const forms = catalogue.messages[singular];
  if (Array.isArray(forms) && forms.length) {
    const index = catalogue.plural[pluralRules.select(n)] ?? forms.length - 1;
    const form = forms[Math.min(index, forms.length - 1)];
    if (form) return fill(form, all);
  }
  return fill(n === 1 ? singular : plural, all); // English's rule, as the msgids are English
}

const numberFormats = new Map();

// ``n`` written in the page's language (``options``: Intl.NumberFormat's).
export function formatNumber(n, options = {}) {
  const key = JSON.stringify(options);
  if (!numberFormats.has(key)) numberFormats.set(key, new Intl.NumberFormat(lang, options));
  return numberFormats.get(key).format(n);
}

// A date (a Date or seconds since 1970) written in the page's language.
export function formatDate(when, options = { dateStyle: "medium", timeStyle: "short" }) {
  const date = when instanceof Date ? when : new Date(when * 1000);
  return new Intl.DateTimeFormat(lang, options).format(date);
}
