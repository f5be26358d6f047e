// RFC 3339 date-time for the schema's "format": "date-time", bundled into the compiled
// route-memory validator (static/vendor/route-memory-validator.js) by compile-validator.mjs.
//
// It is the check the tests hold the browser to: Python's jsonschema with rfc3339-validator
// (which upper-cases first, so "t" and "z" are allowed). ajv-formats' own "date-time" is
// looser (a space for the "T", "+0530" without the colon, leap seconds, year 0000), so it is
// not used. Date.parse would take "2026-11-29" and roll February 30th into March.
"use strict";

const DATE_TIME =
  /^(\d{4})-(0[1-9]|1[0-2])-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year) {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function dateTime(text) {
  const m = typeof text === "string" ? DATE_TIME.exec(text) : null;
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year === 0) return false; // there is no year 0 in RFC 3339's calendar
  const last = month === 2 && isLeap(year) ? 29 : DAYS[month - 1];
  return day >= 1 && day <= last;
}

module.exports = { "date-time": dateTime };
