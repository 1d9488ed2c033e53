/*
 * How the share page writes numbers, amounts, sizes and dates for people (docs/products.md
 * "How the page reads values"). One fixed locale for every visitor: the page's own words are
 * English, and British conventions write dates as "14 March 2026", which no reader takes for
 * 3 February, and numbers as "1,234.5". Calendar dates (template `date` and `dateRange` values)
 * have no time zone and are shown as the same calendar day everywhere (formatted in UTC, where
 * they are stored as midnight); moments (the link's expiry) are written in UTC and say so.
 */

export const LOCALE = 'en-GB';

/** Keeps a glued unit or symbol on the same line as its number. */
const NBSP = '\u00a0';

/** Every digit the stored number has (Intl's default would round to 3 decimals). */
const plainNumber = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 20 });

/**
 * Intl's short unit symbols that read the same for any count (`kg`, `mm`, `%`, `°C`, `GB`, ...),
 * each to its unit identifier: a template unit spelled exactly like one is written by Intl (its
 * spacing: `18 kg`, `18%`, `21°C`); any other unit is kept as the template spells it.
 */
const INTL_UNITS: ReadonlyMap<string, Intl.NumberFormat> = (() => {
  const units = new Map<string, Intl.NumberFormat>();
  for (const unit of Intl.supportedValuesOf('unit')) {
    const format = new Intl.NumberFormat(LOCALE, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 20 });
    const symbolOf = (n: number) =>
      format
        .formatToParts(n)
        .filter((p) => p.type === 'unit')
        .map((p) => p.value)
        .join('');
    const symbol = symbolOf(1);
    if (symbol !== '' && symbol === symbolOf(2) && symbol === symbolOf(2.5)) units.set(symbol, format);
  }
  return units;
})();

/** A number as stored, grouped: `5,400`, `0.25`. */
export function formatNumber(value: number): string {
  return plainNumber.format(value);
}

/** A number with the field's unit: `18 V`, `2.5 kg`, `18%`; without a unit just the number. */
export function formatQuantity(value: number, unit: string | null): string {
  const symbol = unit?.trim() ?? '';
  if (symbol === '') return formatNumber(value);
  const intl = INTL_UNITS.get(symbol);
  return intl ? intl.format(value) : `${formatNumber(value)}${NBSP}${symbol}`;
}

/**
 * An amount in the field's currency with exactly its `decimals`, placed and grouped by Intl for the
 * ISO code, written with the template's own `symbol` (`€129.99`, `$1,250.00`, `kr 99.00`): the
 * symbol is what the template's author chose for readers, and Intl's would differ by locale
 * (`US$`). A code Intl does not accept is laid out like an unknown currency.
 */
export function formatMoney(value: number, currency: { code: string; symbol: string; decimals: number }): string {
  const digits = { minimumFractionDigits: currency.decimals, maximumFractionDigits: currency.decimals };
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: currency.code, ...digits });
  } catch {
    // XXX is ISO 4217's "no currency": the layout of an amount, without anyone's symbol
    format = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'XXX', ...digits });
  }
  const symbol = currency.symbol.trim() === '' ? currency.code : currency.symbol.trim();
  const parts = format.formatToParts(value);
  // the space Intl puts around a lettered symbol (SEK 99) is decided again for the template's symbol
  const visible = parts.filter(
    (p, i) => !(p.type === 'literal' && p.value.trim() === '' && (parts[i - 1]?.type === 'currency' || parts[i + 1]?.type === 'currency')),
  );
  return visible
    .map((part, i) => {
      if (part.type !== 'currency') return part.value;
      const before = visible[i - 1];
      const after = visible[i + 1];
      const lead = before && /\p{N}$/u.test(before.value) && /^[\p{L}\p{N}]/u.test(symbol) ? NBSP : '';
      const trail = after && /^\p{N}/u.test(after.value) && /[\p{L}\p{N}.]$/u.test(symbol) ? NBSP : '';
      return `${lead}${symbol}${trail}`;
    })
    .join('');
}

const calendar = new Intl.DateTimeFormat(LOCALE, { dateStyle: 'long', timeZone: 'UTC' });
const CALENDAR_DATE = /^(\d{4})-(\d\d)-(\d\d)$/;

/** `YYYY-MM-DD` as that day at midnight UTC, or null when it is not a real calendar date. */
function calendarDay(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const match = CALENDAR_DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
}

/** `2026-03-14` as `14 March 2026`; null when it is not a calendar date. */
export function formatDate(text: unknown): string | null {
  const day = calendarDay(text);
  return day ? calendar.format(day) : null;
}

/** A pair of dates as one span, sharing what both have: `1–14 March 2026`, `1 March – 14 April 2026`; one day as that day. */
export function formatDateRange(start: unknown, end: unknown): string | null {
  const from = calendarDay(start);
  const to = calendarDay(end);
  if (!from || !to) return null;
  return from <= to ? calendar.formatRange(from, to) : `${calendar.format(from)} – ${calendar.format(to)}`;
}

const conjunction = new Intl.ListFormat(LOCALE, { type: 'conjunction', style: 'long' });

/** `Red, Green and Blue`. */
export function formatList(items: readonly string[]): string {
  return conjunction.format(items);
}

const moment = new Intl.DateTimeFormat(LOCALE, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** `25 November 2026, 17:04 UTC`: unambiguous to any reader. */
export function formatMoment(iso: string): string {
  return `${moment.format(new Date(iso))} UTC`;
}

/** Bytes as people read them: 1.5 MB, 820 kB (decimal units, as file managers show them). */
export function humanBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
