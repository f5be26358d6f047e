// GENERATED: do not edit. The browser's route-memory validator, compiled from
// docs/route-memory.schema.json (itself generated from app/contract/route.py and
// witness/settings.py) by `python -m app.contract.generate`, which runs
// scripts/compile-validator.mjs (Ajv standalone code + esbuild; no eval at run time).
var __getOwnPropNames = Object.getOwnPropertyNames;
var __commonJS = (cb, mod) => function __require() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};

// node_modules/ajv/dist/runtime/ucs2length.js
var require_ucs2length = __commonJS({
  "node_modules/ajv/dist/runtime/ucs2length.js"(exports) {
    "use strict";
    Object.defineProperty(exports, "__esModule", { value: true });
    function ucs2length(str) {
      const len = str.length;
      let length = 0;
      let pos = 0;
      let value;
      while (pos < len) {
        length++;
        value = str.charCodeAt(pos++);
        if (value >= 55296 && value <= 56319 && pos < len) {
          value = str.charCodeAt(pos);
          if ((value & 64512) === 56320)
            pos++;
        }
      }
      return length;
    }
    exports.default = ucs2length;
    ucs2length.code = 'require("ajv/dist/runtime/ucs2length").default';
  }
});

// scripts/rfc3339.cjs
var require_rfc3339 = __commonJS({
  "scripts/rfc3339.cjs"(exports, module) {
    "use strict";
    var DATE_TIME = /^(\d{4})-(0[1-9]|1[0-2])-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;
    var DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    function isLeap(year) {
      return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    }
    function dateTime(text) {
      const m = typeof text === "string" ? DATE_TIME.exec(text) : null;
      if (!m) return false;
      const year = Number(m[1]);
      const month = Number(m[2]);
      const day = Number(m[3]);
      if (year === 0) return false;
      const last = month === 2 && isLeap(year) ? 29 : DAYS[month - 1];
      return day >= 1 && day <= last;
    }
    module.exports = { "date-time": dateTime };
  }
});

// scripts/route-memory-validator.js
var validateEntry = validate77;
var schema20 = { "type": "object", "required": ["version", "station", "savedAt", "checkpoint"], "additionalProperties": false, "properties": { "version": { "const": 1 }, "station": { "$ref": "#/$defs/stationId" }, "savedAt": { "$ref": "#/$defs/timestamp" }, "checkpoint": { "type": "object" } }, "allOf": [{ "if": { "properties": { "station": { "const": "serving" } } }, "then": { "properties": { "checkpoint": { "$ref": "#/$defs/servingCheckpoint" } } } }, { "if": { "properties": { "station": { "const": "speculative-decoding" } } }, "then": { "properties": { "checkpoint": { "$ref": "#/$defs/speculativeCheckpoint" } } } }] };
var schema21 = { "type": "object", "required": ["workload"], "properties": { "object": { "$ref": "#/$defs/shortText" }, "summary": { "$ref": "#/$defs/shortText" }, "workload": { "type": "object", "required": ["ttftMs", "tpotMs", "tokensToGenerate"], "additionalProperties": false, "properties": { "ttftMs": { "type": "number", "minimum": 0, "maximum": 6e5 }, "tpotMs": { "type": "number", "exclusiveMinimum": 0, "maximum": 1e4 }, "tokensToGenerate": { "type": "integer", "minimum": 1, "maximum": 256 }, "prompt": { "type": "string", "maxLength": 200 }, "notes": { "$ref": "#/$defs/shortText" } } } } };
var schema22 = { "type": "string", "maxLength": 2e3 };
var func1 = require_ucs2length().default;
function validate55(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate55.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  if (typeof data === "string") {
    if (func1(data) > 2e3) {
      const err0 = { instancePath, schemaPath: "#/maxLength", keyword: "maxLength", params: { limit: 2e3 }, message: "must NOT have more than 2000 characters", schema: 2e3, parentSchema: schema22, data };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
  } else {
    const err1 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "string" }, message: "must be string", schema: schema22.type, parentSchema: schema22, data };
    if (vErrors === null) {
      vErrors = [err1];
    } else {
      vErrors.push(err1);
    }
    errors++;
  }
  validate55.errors = vErrors;
  return errors === 0;
}
validate55.evaluated = { "dynamicProps": false, "dynamicItems": false };
function validate54(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate54.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.workload === void 0) {
      const err0 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "workload" }, message: "must have required property 'workload'", schema: schema21.required, parentSchema: schema21, data };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
    if (data.object !== void 0) {
      if (!validate55(data.object, { instancePath: instancePath + "/object", parentData: data, parentDataProperty: "object", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
        errors = vErrors.length;
      }
    }
    if (data.summary !== void 0) {
      if (!validate55(data.summary, { instancePath: instancePath + "/summary", parentData: data, parentDataProperty: "summary", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
        errors = vErrors.length;
      }
    }
    if (data.workload !== void 0) {
      let data2 = data.workload;
      if (data2 && typeof data2 == "object" && !Array.isArray(data2)) {
        if (data2.ttftMs === void 0) {
          const err1 = { instancePath: instancePath + "/workload", schemaPath: "#/properties/workload/required", keyword: "required", params: { missingProperty: "ttftMs" }, message: "must have required property 'ttftMs'", schema: schema21.properties.workload.required, parentSchema: schema21.properties.workload, data: data2 };
          if (vErrors === null) {
            vErrors = [err1];
          } else {
            vErrors.push(err1);
          }
          errors++;
        }
        if (data2.tpotMs === void 0) {
          const err2 = { instancePath: instancePath + "/workload", schemaPath: "#/properties/workload/required", keyword: "required", params: { missingProperty: "tpotMs" }, message: "must have required property 'tpotMs'", schema: schema21.properties.workload.required, parentSchema: schema21.properties.workload, data: data2 };
          if (vErrors === null) {
            vErrors = [err2];
          } else {
            vErrors.push(err2);
          }
          errors++;
        }
        if (data2.tokensToGenerate === void 0) {
          const err3 = { instancePath: instancePath + "/workload", schemaPath: "#/properties/workload/required", keyword: "required", params: { missingProperty: "tokensToGenerate" }, message: "must have required property 'tokensToGenerate'", schema: schema21.properties.workload.required, parentSchema: schema21.properties.workload, data: data2 };
          if (vErrors === null) {
            vErrors = [err3];
          } else {
            vErrors.push(err3);
          }
          errors++;
        }
        for (const key0 in data2) {
          if (!(key0 === "ttftMs" || key0 === "tpotMs" || key0 === "tokensToGenerate" || key0 === "prompt" || key0 === "notes")) {
            const err4 = { instancePath: instancePath + "/workload", schemaPath: "#/properties/workload/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key0 }, message: "must NOT have additional properties", schema: false, parentSchema: schema21.properties.workload, data: data2 };
            if (vErrors === null) {
              vErrors = [err4];
            } else {
              vErrors.push(err4);
            }
            errors++;
          }
        }
        if (data2.ttftMs !== void 0) {
          let data3 = data2.ttftMs;
          if (typeof data3 == "number" && isFinite(data3)) {
            if (data3 > 6e5 || isNaN(data3)) {
              const err5 = { instancePath: instancePath + "/workload/ttftMs", schemaPath: "#/properties/workload/properties/ttftMs/maximum", keyword: "maximum", params: { comparison: "<=", limit: 6e5 }, message: "must be <= 600000", schema: 6e5, parentSchema: schema21.properties.workload.properties.ttftMs, data: data3 };
              if (vErrors === null) {
                vErrors = [err5];
              } else {
                vErrors.push(err5);
              }
              errors++;
            }
            if (data3 < 0 || isNaN(data3)) {
              const err6 = { instancePath: instancePath + "/workload/ttftMs", schemaPath: "#/properties/workload/properties/ttftMs/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema21.properties.workload.properties.ttftMs, data: data3 };
              if (vErrors === null) {
                vErrors = [err6];
              } else {
                vErrors.push(err6);
              }
              errors++;
            }
          } else {
            const err7 = { instancePath: instancePath + "/workload/ttftMs", schemaPath: "#/properties/workload/properties/ttftMs/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema21.properties.workload.properties.ttftMs.type, parentSchema: schema21.properties.workload.properties.ttftMs, data: data3 };
            if (vErrors === null) {
              vErrors = [err7];
            } else {
              vErrors.push(err7);
            }
            errors++;
          }
        }
        if (data2.tpotMs !== void 0) {
          let data4 = data2.tpotMs;
          if (typeof data4 == "number" && isFinite(data4)) {
            if (data4 > 1e4 || isNaN(data4)) {
              const err8 = { instancePath: instancePath + "/workload/tpotMs", schemaPath: "#/properties/workload/properties/tpotMs/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1e4 }, message: "must be <= 10000", schema: 1e4, parentSchema: schema21.properties.workload.properties.tpotMs, data: data4 };
              if (vErrors === null) {
                vErrors = [err8];
              } else {
                vErrors.push(err8);
              }
              errors++;
            }
            if (data4 <= 0 || isNaN(data4)) {
              const err9 = { instancePath: instancePath + "/workload/tpotMs", schemaPath: "#/properties/workload/properties/tpotMs/exclusiveMinimum", keyword: "exclusiveMinimum", params: { comparison: ">", limit: 0 }, message: "must be > 0", schema: 0, parentSchema: schema21.properties.workload.properties.tpotMs, data: data4 };
              if (vErrors === null) {
                vErrors = [err9];
              } else {
                vErrors.push(err9);
              }
              errors++;
            }
          } else {
            const err10 = { instancePath: instancePath + "/workload/tpotMs", schemaPath: "#/properties/workload/properties/tpotMs/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema21.properties.workload.properties.tpotMs.type, parentSchema: schema21.properties.workload.properties.tpotMs, data: data4 };
            if (vErrors === null) {
              vErrors = [err10];
            } else {
              vErrors.push(err10);
            }
            errors++;
          }
        }
        if (data2.tokensToGenerate !== void 0) {
          let data5 = data2.tokensToGenerate;
          if (!(typeof data5 == "number" && (!(data5 % 1) && !isNaN(data5)) && isFinite(data5))) {
            const err11 = { instancePath: instancePath + "/workload/tokensToGenerate", schemaPath: "#/properties/workload/properties/tokensToGenerate/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema21.properties.workload.properties.tokensToGenerate.type, parentSchema: schema21.properties.workload.properties.tokensToGenerate, data: data5 };
            if (vErrors === null) {
              vErrors = [err11];
            } else {
              vErrors.push(err11);
            }
            errors++;
          }
          if (typeof data5 == "number" && isFinite(data5)) {
            if (data5 > 256 || isNaN(data5)) {
              const err12 = { instancePath: instancePath + "/workload/tokensToGenerate", schemaPath: "#/properties/workload/properties/tokensToGenerate/maximum", keyword: "maximum", params: { comparison: "<=", limit: 256 }, message: "must be <= 256", schema: 256, parentSchema: schema21.properties.workload.properties.tokensToGenerate, data: data5 };
              if (vErrors === null) {
                vErrors = [err12];
              } else {
                vErrors.push(err12);
              }
              errors++;
            }
            if (data5 < 1 || isNaN(data5)) {
              const err13 = { instancePath: instancePath + "/workload/tokensToGenerate", schemaPath: "#/properties/workload/properties/tokensToGenerate/minimum", keyword: "minimum", params: { comparison: ">=", limit: 1 }, message: "must be >= 1", schema: 1, parentSchema: schema21.properties.workload.properties.tokensToGenerate, data: data5 };
              if (vErrors === null) {
                vErrors = [err13];
              } else {
                vErrors.push(err13);
              }
              errors++;
            }
          }
        }
        if (data2.prompt !== void 0) {
          let data6 = data2.prompt;
          if (typeof data6 === "string") {
            if (func1(data6) > 200) {
              const err14 = { instancePath: instancePath + "/workload/prompt", schemaPath: "#/properties/workload/properties/prompt/maxLength", keyword: "maxLength", params: { limit: 200 }, message: "must NOT have more than 200 characters", schema: 200, parentSchema: schema21.properties.workload.properties.prompt, data: data6 };
              if (vErrors === null) {
                vErrors = [err14];
              } else {
                vErrors.push(err14);
              }
              errors++;
            }
          } else {
            const err15 = { instancePath: instancePath + "/workload/prompt", schemaPath: "#/properties/workload/properties/prompt/type", keyword: "type", params: { type: "string" }, message: "must be string", schema: schema21.properties.workload.properties.prompt.type, parentSchema: schema21.properties.workload.properties.prompt, data: data6 };
            if (vErrors === null) {
              vErrors = [err15];
            } else {
              vErrors.push(err15);
            }
            errors++;
          }
        }
        if (data2.notes !== void 0) {
          if (!validate55(data2.notes, { instancePath: instancePath + "/workload/notes", parentData: data2, parentDataProperty: "notes", rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err16 = { instancePath: instancePath + "/workload", schemaPath: "#/properties/workload/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema21.properties.workload.type, parentSchema: schema21.properties.workload, data: data2 };
        if (vErrors === null) {
          vErrors = [err16];
        } else {
          vErrors.push(err16);
        }
        errors++;
      }
    }
  } else {
    const err17 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema21.type, parentSchema: schema21, data };
    if (vErrors === null) {
      vErrors = [err17];
    } else {
      vErrors.push(err17);
    }
    errors++;
  }
  validate54.errors = vErrors;
  return errors === 0;
}
validate54.evaluated = { "props": { "object": true, "summary": true, "workload": true }, "dynamicProps": false, "dynamicItems": false };
var schema23 = { "type": "object", "required": ["object", "prediction", "acceptedPrefix", "invariant", "speedupBoundary", "nextRepair", "settings", "url"], "additionalProperties": false, "properties": { "object": { "const": "route:ai-lab/transformers/speculative-decoding#speculative-decoding-station" }, "prediction": { "oneOf": [{ "type": "null" }, { "type": "object", "required": ["intervention", "expectFaster", "expectKept", "held", "sentence"], "additionalProperties": false, "properties": { "intervention": { "enum": ["raise_match", "lengthen_k", "cheapen_draft", "skip_verify", "skip_repair", "skip"] }, "expectFaster": { "type": ["boolean", "null"] }, "expectKept": { "type": ["boolean", "null"] }, "held": { "type": "object", "required": ["speed", "correctness"], "additionalProperties": false, "properties": { "speed": { "type": ["boolean", "null"] }, "correctness": { "type": ["boolean", "null"] } } }, "sentence": { "$ref": "#/$defs/shortText" } } }] }, "acceptedPrefix": { "type": "object", "required": ["tokens", "acceptedDrafts", "rejectedDrafts", "targetPasses", "draftPasses", "baselineTargetPasses", "meanAlpha", "speedupMeasured", "firstRejection"], "additionalProperties": false, "properties": { "tokens": { "type": "integer", "minimum": 1 }, "acceptedDrafts": { "type": "integer", "minimum": 0 }, "rejectedDrafts": { "type": "integer", "minimum": 0 }, "targetPasses": { "type": "integer", "minimum": 0 }, "draftPasses": { "type": "integer", "minimum": 0 }, "baselineTargetPasses": { "type": "integer", "minimum": 1 }, "meanAlpha": { "type": "number", "minimum": 0, "maximum": 1 }, "speedupMeasured": { "type": ["number", "null"], "minimum": 0 }, "speedupExpected": { "type": ["number", "null"], "minimum": 0 }, "msSpeculative": { "type": "number", "minimum": 0 }, "msBaseline": { "type": "number", "minimum": 0 }, "firstRejection": { "$ref": "#/$defs/shortText" } } }, "invariant": { "type": "object", "required": ["mode", "keepsTarget", "tvMax", "correctness", "savings"], "additionalProperties": false, "properties": { "mode": { "enum": ["lossless", "no_repair", "no_verify"] }, "greedy": { "type": "boolean" }, "keepsTarget": { "type": "boolean" }, "tvMax": { "type": "number", "minimum": 0, "maximum": 1 }, "correctness": { "$ref": "#/$defs/shortText" }, "savings": { "$ref": "#/$defs/shortText" } } }, "speedupBoundary": { "type": "object", "required": ["draftCost", "breakEvenAlpha", "meanAlpha", "optimalK", "pays", "sentence"], "additionalProperties": false, "properties": { "draftCost": { "type": "number", "minimum": 0, "maximum": 1 }, "breakEvenAlpha": { "type": "number", "minimum": 0, "maximum": 1 }, "meanAlpha": { "type": "number", "minimum": 0, "maximum": 1 }, "optimalK": { "type": "integer", "minimum": 1, "maximum": 16 }, "pays": { "type": "boolean" }, "sentence": { "$ref": "#/$defs/shortText" } } }, "nextRepair": { "$ref": "#/$defs/shortText" }, "settings": { "type": "object", "required": ["match", "k", "draft_cost", "verify", "repair", "greedy", "seed", "tokens", "prompt", "tpot_ms", "ttft_ms"], "additionalProperties": false, "properties": { "match": { "type": "number", "minimum": 0, "maximum": 1 }, "k": { "type": "integer", "minimum": 1, "maximum": 16 }, "draft_cost": { "type": "number", "minimum": 0, "maximum": 1 }, "verify": { "type": "boolean" }, "repair": { "type": "boolean" }, "greedy": { "type": "boolean" }, "seed": { "type": "integer", "minimum": 0, "maximum": 2147483647 }, "tokens": { "type": "integer", "minimum": 1, "maximum": 256 }, "prompt": { "type": "string", "maxLength": 200 }, "tpot_ms": { "type": "number", "exclusiveMinimum": 0, "maximum": 1e4 }, "ttft_ms": { "type": "number", "minimum": 0, "maximum": 6e5 } } }, "url": { "type": "string", "pattern": "^/station(\\?[^#]*)?$", "maxLength": 2e3 } } };
var func3 = Object.prototype.hasOwnProperty;
var pattern3 = new RegExp("^/station(\\?[^#]*)?$", "u");
function validate60(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate60.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.object === void 0) {
      const err0 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "object" }, message: "must have required property 'object'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
    if (data.prediction === void 0) {
      const err1 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "prediction" }, message: "must have required property 'prediction'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err1];
      } else {
        vErrors.push(err1);
      }
      errors++;
    }
    if (data.acceptedPrefix === void 0) {
      const err2 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "acceptedPrefix" }, message: "must have required property 'acceptedPrefix'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err2];
      } else {
        vErrors.push(err2);
      }
      errors++;
    }
    if (data.invariant === void 0) {
      const err3 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "invariant" }, message: "must have required property 'invariant'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err3];
      } else {
        vErrors.push(err3);
      }
      errors++;
    }
    if (data.speedupBoundary === void 0) {
      const err4 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "speedupBoundary" }, message: "must have required property 'speedupBoundary'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err4];
      } else {
        vErrors.push(err4);
      }
      errors++;
    }
    if (data.nextRepair === void 0) {
      const err5 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "nextRepair" }, message: "must have required property 'nextRepair'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err5];
      } else {
        vErrors.push(err5);
      }
      errors++;
    }
    if (data.settings === void 0) {
      const err6 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "settings" }, message: "must have required property 'settings'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err6];
      } else {
        vErrors.push(err6);
      }
      errors++;
    }
    if (data.url === void 0) {
      const err7 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "url" }, message: "must have required property 'url'", schema: schema23.required, parentSchema: schema23, data };
      if (vErrors === null) {
        vErrors = [err7];
      } else {
        vErrors.push(err7);
      }
      errors++;
    }
    for (const key0 in data) {
      if (!(key0 === "object" || key0 === "prediction" || key0 === "acceptedPrefix" || key0 === "invariant" || key0 === "speedupBoundary" || key0 === "nextRepair" || key0 === "settings" || key0 === "url")) {
        const err8 = { instancePath, schemaPath: "#/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key0 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23, data };
        if (vErrors === null) {
          vErrors = [err8];
        } else {
          vErrors.push(err8);
        }
        errors++;
      }
    }
    if (data.object !== void 0) {
      let data0 = data.object;
      if ("route:ai-lab/transformers/speculative-decoding#speculative-decoding-station" !== data0) {
        const err9 = { instancePath: instancePath + "/object", schemaPath: "#/properties/object/const", keyword: "const", params: { allowedValue: "route:ai-lab/transformers/speculative-decoding#speculative-decoding-station" }, message: "must be equal to constant", schema: "route:ai-lab/transformers/speculative-decoding#speculative-decoding-station", parentSchema: schema23.properties.object, data: data0 };
        if (vErrors === null) {
          vErrors = [err9];
        } else {
          vErrors.push(err9);
        }
        errors++;
      }
    }
    if (data.prediction !== void 0) {
      let data1 = data.prediction;
      const _errs4 = errors;
      let valid1 = false;
      let passing0 = null;
      const _errs5 = errors;
      if (data1 !== null) {
        const err10 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/0/type", keyword: "type", params: { type: "null" }, message: "must be null", schema: schema23.properties.prediction.oneOf[0].type, parentSchema: schema23.properties.prediction.oneOf[0], data: data1 };
        if (vErrors === null) {
          vErrors = [err10];
        } else {
          vErrors.push(err10);
        }
        errors++;
      }
      var _valid0 = _errs5 === errors;
      if (_valid0) {
        valid1 = true;
        passing0 = 0;
      }
      const _errs7 = errors;
      if (data1 && typeof data1 == "object" && !Array.isArray(data1)) {
        if (data1.intervention === void 0) {
          const err11 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/required", keyword: "required", params: { missingProperty: "intervention" }, message: "must have required property 'intervention'", schema: schema23.properties.prediction.oneOf[1].required, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
          if (vErrors === null) {
            vErrors = [err11];
          } else {
            vErrors.push(err11);
          }
          errors++;
        }
        if (data1.expectFaster === void 0) {
          const err12 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/required", keyword: "required", params: { missingProperty: "expectFaster" }, message: "must have required property 'expectFaster'", schema: schema23.properties.prediction.oneOf[1].required, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
          if (vErrors === null) {
            vErrors = [err12];
          } else {
            vErrors.push(err12);
          }
          errors++;
        }
        if (data1.expectKept === void 0) {
          const err13 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/required", keyword: "required", params: { missingProperty: "expectKept" }, message: "must have required property 'expectKept'", schema: schema23.properties.prediction.oneOf[1].required, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
          if (vErrors === null) {
            vErrors = [err13];
          } else {
            vErrors.push(err13);
          }
          errors++;
        }
        if (data1.held === void 0) {
          const err14 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/required", keyword: "required", params: { missingProperty: "held" }, message: "must have required property 'held'", schema: schema23.properties.prediction.oneOf[1].required, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
          if (vErrors === null) {
            vErrors = [err14];
          } else {
            vErrors.push(err14);
          }
          errors++;
        }
        if (data1.sentence === void 0) {
          const err15 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/required", keyword: "required", params: { missingProperty: "sentence" }, message: "must have required property 'sentence'", schema: schema23.properties.prediction.oneOf[1].required, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
          if (vErrors === null) {
            vErrors = [err15];
          } else {
            vErrors.push(err15);
          }
          errors++;
        }
        for (const key1 in data1) {
          if (!(key1 === "intervention" || key1 === "expectFaster" || key1 === "expectKept" || key1 === "held" || key1 === "sentence")) {
            const err16 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key1 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
            if (vErrors === null) {
              vErrors = [err16];
            } else {
              vErrors.push(err16);
            }
            errors++;
          }
        }
        if (data1.intervention !== void 0) {
          let data2 = data1.intervention;
          if (!(data2 === "raise_match" || data2 === "lengthen_k" || data2 === "cheapen_draft" || data2 === "skip_verify" || data2 === "skip_repair" || data2 === "skip")) {
            const err17 = { instancePath: instancePath + "/prediction/intervention", schemaPath: "#/properties/prediction/oneOf/1/properties/intervention/enum", keyword: "enum", params: { allowedValues: schema23.properties.prediction.oneOf[1].properties.intervention.enum }, message: "must be equal to one of the allowed values", schema: schema23.properties.prediction.oneOf[1].properties.intervention.enum, parentSchema: schema23.properties.prediction.oneOf[1].properties.intervention, data: data2 };
            if (vErrors === null) {
              vErrors = [err17];
            } else {
              vErrors.push(err17);
            }
            errors++;
          }
        }
        if (data1.expectFaster !== void 0) {
          let data3 = data1.expectFaster;
          if (typeof data3 !== "boolean" && data3 !== null) {
            const err18 = { instancePath: instancePath + "/prediction/expectFaster", schemaPath: "#/properties/prediction/oneOf/1/properties/expectFaster/type", keyword: "type", params: { type: schema23.properties.prediction.oneOf[1].properties.expectFaster.type }, message: "must be boolean,null", schema: schema23.properties.prediction.oneOf[1].properties.expectFaster.type, parentSchema: schema23.properties.prediction.oneOf[1].properties.expectFaster, data: data3 };
            if (vErrors === null) {
              vErrors = [err18];
            } else {
              vErrors.push(err18);
            }
            errors++;
          }
        }
        if (data1.expectKept !== void 0) {
          let data4 = data1.expectKept;
          if (typeof data4 !== "boolean" && data4 !== null) {
            const err19 = { instancePath: instancePath + "/prediction/expectKept", schemaPath: "#/properties/prediction/oneOf/1/properties/expectKept/type", keyword: "type", params: { type: schema23.properties.prediction.oneOf[1].properties.expectKept.type }, message: "must be boolean,null", schema: schema23.properties.prediction.oneOf[1].properties.expectKept.type, parentSchema: schema23.properties.prediction.oneOf[1].properties.expectKept, data: data4 };
            if (vErrors === null) {
              vErrors = [err19];
            } else {
              vErrors.push(err19);
            }
            errors++;
          }
        }
        if (data1.held !== void 0) {
          let data5 = data1.held;
          if (data5 && typeof data5 == "object" && !Array.isArray(data5)) {
            if (data5.speed === void 0) {
              const err20 = { instancePath: instancePath + "/prediction/held", schemaPath: "#/properties/prediction/oneOf/1/properties/held/required", keyword: "required", params: { missingProperty: "speed" }, message: "must have required property 'speed'", schema: schema23.properties.prediction.oneOf[1].properties.held.required, parentSchema: schema23.properties.prediction.oneOf[1].properties.held, data: data5 };
              if (vErrors === null) {
                vErrors = [err20];
              } else {
                vErrors.push(err20);
              }
              errors++;
            }
            if (data5.correctness === void 0) {
              const err21 = { instancePath: instancePath + "/prediction/held", schemaPath: "#/properties/prediction/oneOf/1/properties/held/required", keyword: "required", params: { missingProperty: "correctness" }, message: "must have required property 'correctness'", schema: schema23.properties.prediction.oneOf[1].properties.held.required, parentSchema: schema23.properties.prediction.oneOf[1].properties.held, data: data5 };
              if (vErrors === null) {
                vErrors = [err21];
              } else {
                vErrors.push(err21);
              }
              errors++;
            }
            for (const key2 in data5) {
              if (!(key2 === "speed" || key2 === "correctness")) {
                const err22 = { instancePath: instancePath + "/prediction/held", schemaPath: "#/properties/prediction/oneOf/1/properties/held/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key2 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23.properties.prediction.oneOf[1].properties.held, data: data5 };
                if (vErrors === null) {
                  vErrors = [err22];
                } else {
                  vErrors.push(err22);
                }
                errors++;
              }
            }
            if (data5.speed !== void 0) {
              let data6 = data5.speed;
              if (typeof data6 !== "boolean" && data6 !== null) {
                const err23 = { instancePath: instancePath + "/prediction/held/speed", schemaPath: "#/properties/prediction/oneOf/1/properties/held/properties/speed/type", keyword: "type", params: { type: schema23.properties.prediction.oneOf[1].properties.held.properties.speed.type }, message: "must be boolean,null", schema: schema23.properties.prediction.oneOf[1].properties.held.properties.speed.type, parentSchema: schema23.properties.prediction.oneOf[1].properties.held.properties.speed, data: data6 };
                if (vErrors === null) {
                  vErrors = [err23];
                } else {
                  vErrors.push(err23);
                }
                errors++;
              }
            }
            if (data5.correctness !== void 0) {
              let data7 = data5.correctness;
              if (typeof data7 !== "boolean" && data7 !== null) {
                const err24 = { instancePath: instancePath + "/prediction/held/correctness", schemaPath: "#/properties/prediction/oneOf/1/properties/held/properties/correctness/type", keyword: "type", params: { type: schema23.properties.prediction.oneOf[1].properties.held.properties.correctness.type }, message: "must be boolean,null", schema: schema23.properties.prediction.oneOf[1].properties.held.properties.correctness.type, parentSchema: schema23.properties.prediction.oneOf[1].properties.held.properties.correctness, data: data7 };
                if (vErrors === null) {
                  vErrors = [err24];
                } else {
                  vErrors.push(err24);
                }
                errors++;
              }
            }
          } else {
            const err25 = { instancePath: instancePath + "/prediction/held", schemaPath: "#/properties/prediction/oneOf/1/properties/held/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.properties.prediction.oneOf[1].properties.held.type, parentSchema: schema23.properties.prediction.oneOf[1].properties.held, data: data5 };
            if (vErrors === null) {
              vErrors = [err25];
            } else {
              vErrors.push(err25);
            }
            errors++;
          }
        }
        if (data1.sentence !== void 0) {
          if (!validate55(data1.sentence, { instancePath: instancePath + "/prediction/sentence", parentData: data1, parentDataProperty: "sentence", rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err26 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf/1/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.properties.prediction.oneOf[1].type, parentSchema: schema23.properties.prediction.oneOf[1], data: data1 };
        if (vErrors === null) {
          vErrors = [err26];
        } else {
          vErrors.push(err26);
        }
        errors++;
      }
      var _valid0 = _errs7 === errors;
      if (_valid0 && valid1) {
        valid1 = false;
        passing0 = [passing0, 1];
      } else {
        if (_valid0) {
          valid1 = true;
          passing0 = 1;
        }
      }
      if (!valid1) {
        const err27 = { instancePath: instancePath + "/prediction", schemaPath: "#/properties/prediction/oneOf", keyword: "oneOf", params: { passingSchemas: passing0 }, message: "must match exactly one schema in oneOf", schema: schema23.properties.prediction.oneOf, parentSchema: schema23.properties.prediction, data: data1 };
        if (vErrors === null) {
          vErrors = [err27];
        } else {
          vErrors.push(err27);
        }
        errors++;
      } else {
        errors = _errs4;
        if (vErrors !== null) {
          if (_errs4) {
            vErrors.length = _errs4;
          } else {
            vErrors = null;
          }
        }
      }
    }
    if (data.acceptedPrefix !== void 0) {
      let data9 = data.acceptedPrefix;
      if (data9 && typeof data9 == "object" && !Array.isArray(data9)) {
        if (data9.tokens === void 0) {
          const err28 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "tokens" }, message: "must have required property 'tokens'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err28];
          } else {
            vErrors.push(err28);
          }
          errors++;
        }
        if (data9.acceptedDrafts === void 0) {
          const err29 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "acceptedDrafts" }, message: "must have required property 'acceptedDrafts'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err29];
          } else {
            vErrors.push(err29);
          }
          errors++;
        }
        if (data9.rejectedDrafts === void 0) {
          const err30 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "rejectedDrafts" }, message: "must have required property 'rejectedDrafts'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err30];
          } else {
            vErrors.push(err30);
          }
          errors++;
        }
        if (data9.targetPasses === void 0) {
          const err31 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "targetPasses" }, message: "must have required property 'targetPasses'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err31];
          } else {
            vErrors.push(err31);
          }
          errors++;
        }
        if (data9.draftPasses === void 0) {
          const err32 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "draftPasses" }, message: "must have required property 'draftPasses'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err32];
          } else {
            vErrors.push(err32);
          }
          errors++;
        }
        if (data9.baselineTargetPasses === void 0) {
          const err33 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "baselineTargetPasses" }, message: "must have required property 'baselineTargetPasses'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err33];
          } else {
            vErrors.push(err33);
          }
          errors++;
        }
        if (data9.meanAlpha === void 0) {
          const err34 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "meanAlpha" }, message: "must have required property 'meanAlpha'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err34];
          } else {
            vErrors.push(err34);
          }
          errors++;
        }
        if (data9.speedupMeasured === void 0) {
          const err35 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "speedupMeasured" }, message: "must have required property 'speedupMeasured'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err35];
          } else {
            vErrors.push(err35);
          }
          errors++;
        }
        if (data9.firstRejection === void 0) {
          const err36 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/required", keyword: "required", params: { missingProperty: "firstRejection" }, message: "must have required property 'firstRejection'", schema: schema23.properties.acceptedPrefix.required, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
          if (vErrors === null) {
            vErrors = [err36];
          } else {
            vErrors.push(err36);
          }
          errors++;
        }
        for (const key3 in data9) {
          if (!func3.call(schema23.properties.acceptedPrefix.properties, key3)) {
            const err37 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key3 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
            if (vErrors === null) {
              vErrors = [err37];
            } else {
              vErrors.push(err37);
            }
            errors++;
          }
        }
        if (data9.tokens !== void 0) {
          let data10 = data9.tokens;
          if (!(typeof data10 == "number" && (!(data10 % 1) && !isNaN(data10)) && isFinite(data10))) {
            const err38 = { instancePath: instancePath + "/acceptedPrefix/tokens", schemaPath: "#/properties/acceptedPrefix/properties/tokens/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.acceptedPrefix.properties.tokens.type, parentSchema: schema23.properties.acceptedPrefix.properties.tokens, data: data10 };
            if (vErrors === null) {
              vErrors = [err38];
            } else {
              vErrors.push(err38);
            }
            errors++;
          }
          if (typeof data10 == "number" && isFinite(data10)) {
            if (data10 < 1 || isNaN(data10)) {
              const err39 = { instancePath: instancePath + "/acceptedPrefix/tokens", schemaPath: "#/properties/acceptedPrefix/properties/tokens/minimum", keyword: "minimum", params: { comparison: ">=", limit: 1 }, message: "must be >= 1", schema: 1, parentSchema: schema23.properties.acceptedPrefix.properties.tokens, data: data10 };
              if (vErrors === null) {
                vErrors = [err39];
              } else {
                vErrors.push(err39);
              }
              errors++;
            }
          }
        }
        if (data9.acceptedDrafts !== void 0) {
          let data11 = data9.acceptedDrafts;
          if (!(typeof data11 == "number" && (!(data11 % 1) && !isNaN(data11)) && isFinite(data11))) {
            const err40 = { instancePath: instancePath + "/acceptedPrefix/acceptedDrafts", schemaPath: "#/properties/acceptedPrefix/properties/acceptedDrafts/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.acceptedPrefix.properties.acceptedDrafts.type, parentSchema: schema23.properties.acceptedPrefix.properties.acceptedDrafts, data: data11 };
            if (vErrors === null) {
              vErrors = [err40];
            } else {
              vErrors.push(err40);
            }
            errors++;
          }
          if (typeof data11 == "number" && isFinite(data11)) {
            if (data11 < 0 || isNaN(data11)) {
              const err41 = { instancePath: instancePath + "/acceptedPrefix/acceptedDrafts", schemaPath: "#/properties/acceptedPrefix/properties/acceptedDrafts/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.acceptedDrafts, data: data11 };
              if (vErrors === null) {
                vErrors = [err41];
              } else {
                vErrors.push(err41);
              }
              errors++;
            }
          }
        }
        if (data9.rejectedDrafts !== void 0) {
          let data12 = data9.rejectedDrafts;
          if (!(typeof data12 == "number" && (!(data12 % 1) && !isNaN(data12)) && isFinite(data12))) {
            const err42 = { instancePath: instancePath + "/acceptedPrefix/rejectedDrafts", schemaPath: "#/properties/acceptedPrefix/properties/rejectedDrafts/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.acceptedPrefix.properties.rejectedDrafts.type, parentSchema: schema23.properties.acceptedPrefix.properties.rejectedDrafts, data: data12 };
            if (vErrors === null) {
              vErrors = [err42];
            } else {
              vErrors.push(err42);
            }
            errors++;
          }
          if (typeof data12 == "number" && isFinite(data12)) {
            if (data12 < 0 || isNaN(data12)) {
              const err43 = { instancePath: instancePath + "/acceptedPrefix/rejectedDrafts", schemaPath: "#/properties/acceptedPrefix/properties/rejectedDrafts/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.rejectedDrafts, data: data12 };
              if (vErrors === null) {
                vErrors = [err43];
              } else {
                vErrors.push(err43);
              }
              errors++;
            }
          }
        }
        if (data9.targetPasses !== void 0) {
          let data13 = data9.targetPasses;
          if (!(typeof data13 == "number" && (!(data13 % 1) && !isNaN(data13)) && isFinite(data13))) {
            const err44 = { instancePath: instancePath + "/acceptedPrefix/targetPasses", schemaPath: "#/properties/acceptedPrefix/properties/targetPasses/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.acceptedPrefix.properties.targetPasses.type, parentSchema: schema23.properties.acceptedPrefix.properties.targetPasses, data: data13 };
            if (vErrors === null) {
              vErrors = [err44];
            } else {
              vErrors.push(err44);
            }
            errors++;
          }
          if (typeof data13 == "number" && isFinite(data13)) {
            if (data13 < 0 || isNaN(data13)) {
              const err45 = { instancePath: instancePath + "/acceptedPrefix/targetPasses", schemaPath: "#/properties/acceptedPrefix/properties/targetPasses/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.targetPasses, data: data13 };
              if (vErrors === null) {
                vErrors = [err45];
              } else {
                vErrors.push(err45);
              }
              errors++;
            }
          }
        }
        if (data9.draftPasses !== void 0) {
          let data14 = data9.draftPasses;
          if (!(typeof data14 == "number" && (!(data14 % 1) && !isNaN(data14)) && isFinite(data14))) {
            const err46 = { instancePath: instancePath + "/acceptedPrefix/draftPasses", schemaPath: "#/properties/acceptedPrefix/properties/draftPasses/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.acceptedPrefix.properties.draftPasses.type, parentSchema: schema23.properties.acceptedPrefix.properties.draftPasses, data: data14 };
            if (vErrors === null) {
              vErrors = [err46];
            } else {
              vErrors.push(err46);
            }
            errors++;
          }
          if (typeof data14 == "number" && isFinite(data14)) {
            if (data14 < 0 || isNaN(data14)) {
              const err47 = { instancePath: instancePath + "/acceptedPrefix/draftPasses", schemaPath: "#/properties/acceptedPrefix/properties/draftPasses/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.draftPasses, data: data14 };
              if (vErrors === null) {
                vErrors = [err47];
              } else {
                vErrors.push(err47);
              }
              errors++;
            }
          }
        }
        if (data9.baselineTargetPasses !== void 0) {
          let data15 = data9.baselineTargetPasses;
          if (!(typeof data15 == "number" && (!(data15 % 1) && !isNaN(data15)) && isFinite(data15))) {
            const err48 = { instancePath: instancePath + "/acceptedPrefix/baselineTargetPasses", schemaPath: "#/properties/acceptedPrefix/properties/baselineTargetPasses/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.acceptedPrefix.properties.baselineTargetPasses.type, parentSchema: schema23.properties.acceptedPrefix.properties.baselineTargetPasses, data: data15 };
            if (vErrors === null) {
              vErrors = [err48];
            } else {
              vErrors.push(err48);
            }
            errors++;
          }
          if (typeof data15 == "number" && isFinite(data15)) {
            if (data15 < 1 || isNaN(data15)) {
              const err49 = { instancePath: instancePath + "/acceptedPrefix/baselineTargetPasses", schemaPath: "#/properties/acceptedPrefix/properties/baselineTargetPasses/minimum", keyword: "minimum", params: { comparison: ">=", limit: 1 }, message: "must be >= 1", schema: 1, parentSchema: schema23.properties.acceptedPrefix.properties.baselineTargetPasses, data: data15 };
              if (vErrors === null) {
                vErrors = [err49];
              } else {
                vErrors.push(err49);
              }
              errors++;
            }
          }
        }
        if (data9.meanAlpha !== void 0) {
          let data16 = data9.meanAlpha;
          if (typeof data16 == "number" && isFinite(data16)) {
            if (data16 > 1 || isNaN(data16)) {
              const err50 = { instancePath: instancePath + "/acceptedPrefix/meanAlpha", schemaPath: "#/properties/acceptedPrefix/properties/meanAlpha/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.acceptedPrefix.properties.meanAlpha, data: data16 };
              if (vErrors === null) {
                vErrors = [err50];
              } else {
                vErrors.push(err50);
              }
              errors++;
            }
            if (data16 < 0 || isNaN(data16)) {
              const err51 = { instancePath: instancePath + "/acceptedPrefix/meanAlpha", schemaPath: "#/properties/acceptedPrefix/properties/meanAlpha/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.meanAlpha, data: data16 };
              if (vErrors === null) {
                vErrors = [err51];
              } else {
                vErrors.push(err51);
              }
              errors++;
            }
          } else {
            const err52 = { instancePath: instancePath + "/acceptedPrefix/meanAlpha", schemaPath: "#/properties/acceptedPrefix/properties/meanAlpha/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.acceptedPrefix.properties.meanAlpha.type, parentSchema: schema23.properties.acceptedPrefix.properties.meanAlpha, data: data16 };
            if (vErrors === null) {
              vErrors = [err52];
            } else {
              vErrors.push(err52);
            }
            errors++;
          }
        }
        if (data9.speedupMeasured !== void 0) {
          let data17 = data9.speedupMeasured;
          if (!(typeof data17 == "number" && isFinite(data17)) && data17 !== null) {
            const err53 = { instancePath: instancePath + "/acceptedPrefix/speedupMeasured", schemaPath: "#/properties/acceptedPrefix/properties/speedupMeasured/type", keyword: "type", params: { type: schema23.properties.acceptedPrefix.properties.speedupMeasured.type }, message: "must be number,null", schema: schema23.properties.acceptedPrefix.properties.speedupMeasured.type, parentSchema: schema23.properties.acceptedPrefix.properties.speedupMeasured, data: data17 };
            if (vErrors === null) {
              vErrors = [err53];
            } else {
              vErrors.push(err53);
            }
            errors++;
          }
          if (typeof data17 == "number" && isFinite(data17)) {
            if (data17 < 0 || isNaN(data17)) {
              const err54 = { instancePath: instancePath + "/acceptedPrefix/speedupMeasured", schemaPath: "#/properties/acceptedPrefix/properties/speedupMeasured/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.speedupMeasured, data: data17 };
              if (vErrors === null) {
                vErrors = [err54];
              } else {
                vErrors.push(err54);
              }
              errors++;
            }
          }
        }
        if (data9.speedupExpected !== void 0) {
          let data18 = data9.speedupExpected;
          if (!(typeof data18 == "number" && isFinite(data18)) && data18 !== null) {
            const err55 = { instancePath: instancePath + "/acceptedPrefix/speedupExpected", schemaPath: "#/properties/acceptedPrefix/properties/speedupExpected/type", keyword: "type", params: { type: schema23.properties.acceptedPrefix.properties.speedupExpected.type }, message: "must be number,null", schema: schema23.properties.acceptedPrefix.properties.speedupExpected.type, parentSchema: schema23.properties.acceptedPrefix.properties.speedupExpected, data: data18 };
            if (vErrors === null) {
              vErrors = [err55];
            } else {
              vErrors.push(err55);
            }
            errors++;
          }
          if (typeof data18 == "number" && isFinite(data18)) {
            if (data18 < 0 || isNaN(data18)) {
              const err56 = { instancePath: instancePath + "/acceptedPrefix/speedupExpected", schemaPath: "#/properties/acceptedPrefix/properties/speedupExpected/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.speedupExpected, data: data18 };
              if (vErrors === null) {
                vErrors = [err56];
              } else {
                vErrors.push(err56);
              }
              errors++;
            }
          }
        }
        if (data9.msSpeculative !== void 0) {
          let data19 = data9.msSpeculative;
          if (typeof data19 == "number" && isFinite(data19)) {
            if (data19 < 0 || isNaN(data19)) {
              const err57 = { instancePath: instancePath + "/acceptedPrefix/msSpeculative", schemaPath: "#/properties/acceptedPrefix/properties/msSpeculative/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.msSpeculative, data: data19 };
              if (vErrors === null) {
                vErrors = [err57];
              } else {
                vErrors.push(err57);
              }
              errors++;
            }
          } else {
            const err58 = { instancePath: instancePath + "/acceptedPrefix/msSpeculative", schemaPath: "#/properties/acceptedPrefix/properties/msSpeculative/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.acceptedPrefix.properties.msSpeculative.type, parentSchema: schema23.properties.acceptedPrefix.properties.msSpeculative, data: data19 };
            if (vErrors === null) {
              vErrors = [err58];
            } else {
              vErrors.push(err58);
            }
            errors++;
          }
        }
        if (data9.msBaseline !== void 0) {
          let data20 = data9.msBaseline;
          if (typeof data20 == "number" && isFinite(data20)) {
            if (data20 < 0 || isNaN(data20)) {
              const err59 = { instancePath: instancePath + "/acceptedPrefix/msBaseline", schemaPath: "#/properties/acceptedPrefix/properties/msBaseline/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.acceptedPrefix.properties.msBaseline, data: data20 };
              if (vErrors === null) {
                vErrors = [err59];
              } else {
                vErrors.push(err59);
              }
              errors++;
            }
          } else {
            const err60 = { instancePath: instancePath + "/acceptedPrefix/msBaseline", schemaPath: "#/properties/acceptedPrefix/properties/msBaseline/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.acceptedPrefix.properties.msBaseline.type, parentSchema: schema23.properties.acceptedPrefix.properties.msBaseline, data: data20 };
            if (vErrors === null) {
              vErrors = [err60];
            } else {
              vErrors.push(err60);
            }
            errors++;
          }
        }
        if (data9.firstRejection !== void 0) {
          if (!validate55(data9.firstRejection, { instancePath: instancePath + "/acceptedPrefix/firstRejection", parentData: data9, parentDataProperty: "firstRejection", rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err61 = { instancePath: instancePath + "/acceptedPrefix", schemaPath: "#/properties/acceptedPrefix/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.properties.acceptedPrefix.type, parentSchema: schema23.properties.acceptedPrefix, data: data9 };
        if (vErrors === null) {
          vErrors = [err61];
        } else {
          vErrors.push(err61);
        }
        errors++;
      }
    }
    if (data.invariant !== void 0) {
      let data22 = data.invariant;
      if (data22 && typeof data22 == "object" && !Array.isArray(data22)) {
        if (data22.mode === void 0) {
          const err62 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/required", keyword: "required", params: { missingProperty: "mode" }, message: "must have required property 'mode'", schema: schema23.properties.invariant.required, parentSchema: schema23.properties.invariant, data: data22 };
          if (vErrors === null) {
            vErrors = [err62];
          } else {
            vErrors.push(err62);
          }
          errors++;
        }
        if (data22.keepsTarget === void 0) {
          const err63 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/required", keyword: "required", params: { missingProperty: "keepsTarget" }, message: "must have required property 'keepsTarget'", schema: schema23.properties.invariant.required, parentSchema: schema23.properties.invariant, data: data22 };
          if (vErrors === null) {
            vErrors = [err63];
          } else {
            vErrors.push(err63);
          }
          errors++;
        }
        if (data22.tvMax === void 0) {
          const err64 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/required", keyword: "required", params: { missingProperty: "tvMax" }, message: "must have required property 'tvMax'", schema: schema23.properties.invariant.required, parentSchema: schema23.properties.invariant, data: data22 };
          if (vErrors === null) {
            vErrors = [err64];
          } else {
            vErrors.push(err64);
          }
          errors++;
        }
        if (data22.correctness === void 0) {
          const err65 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/required", keyword: "required", params: { missingProperty: "correctness" }, message: "must have required property 'correctness'", schema: schema23.properties.invariant.required, parentSchema: schema23.properties.invariant, data: data22 };
          if (vErrors === null) {
            vErrors = [err65];
          } else {
            vErrors.push(err65);
          }
          errors++;
        }
        if (data22.savings === void 0) {
          const err66 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/required", keyword: "required", params: { missingProperty: "savings" }, message: "must have required property 'savings'", schema: schema23.properties.invariant.required, parentSchema: schema23.properties.invariant, data: data22 };
          if (vErrors === null) {
            vErrors = [err66];
          } else {
            vErrors.push(err66);
          }
          errors++;
        }
        for (const key4 in data22) {
          if (!(key4 === "mode" || key4 === "greedy" || key4 === "keepsTarget" || key4 === "tvMax" || key4 === "correctness" || key4 === "savings")) {
            const err67 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key4 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23.properties.invariant, data: data22 };
            if (vErrors === null) {
              vErrors = [err67];
            } else {
              vErrors.push(err67);
            }
            errors++;
          }
        }
        if (data22.mode !== void 0) {
          let data23 = data22.mode;
          if (!(data23 === "lossless" || data23 === "no_repair" || data23 === "no_verify")) {
            const err68 = { instancePath: instancePath + "/invariant/mode", schemaPath: "#/properties/invariant/properties/mode/enum", keyword: "enum", params: { allowedValues: schema23.properties.invariant.properties.mode.enum }, message: "must be equal to one of the allowed values", schema: schema23.properties.invariant.properties.mode.enum, parentSchema: schema23.properties.invariant.properties.mode, data: data23 };
            if (vErrors === null) {
              vErrors = [err68];
            } else {
              vErrors.push(err68);
            }
            errors++;
          }
        }
        if (data22.greedy !== void 0) {
          let data24 = data22.greedy;
          if (typeof data24 !== "boolean") {
            const err69 = { instancePath: instancePath + "/invariant/greedy", schemaPath: "#/properties/invariant/properties/greedy/type", keyword: "type", params: { type: "boolean" }, message: "must be boolean", schema: schema23.properties.invariant.properties.greedy.type, parentSchema: schema23.properties.invariant.properties.greedy, data: data24 };
            if (vErrors === null) {
              vErrors = [err69];
            } else {
              vErrors.push(err69);
            }
            errors++;
          }
        }
        if (data22.keepsTarget !== void 0) {
          let data25 = data22.keepsTarget;
          if (typeof data25 !== "boolean") {
            const err70 = { instancePath: instancePath + "/invariant/keepsTarget", schemaPath: "#/properties/invariant/properties/keepsTarget/type", keyword: "type", params: { type: "boolean" }, message: "must be boolean", schema: schema23.properties.invariant.properties.keepsTarget.type, parentSchema: schema23.properties.invariant.properties.keepsTarget, data: data25 };
            if (vErrors === null) {
              vErrors = [err70];
            } else {
              vErrors.push(err70);
            }
            errors++;
          }
        }
        if (data22.tvMax !== void 0) {
          let data26 = data22.tvMax;
          if (typeof data26 == "number" && isFinite(data26)) {
            if (data26 > 1 || isNaN(data26)) {
              const err71 = { instancePath: instancePath + "/invariant/tvMax", schemaPath: "#/properties/invariant/properties/tvMax/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.invariant.properties.tvMax, data: data26 };
              if (vErrors === null) {
                vErrors = [err71];
              } else {
                vErrors.push(err71);
              }
              errors++;
            }
            if (data26 < 0 || isNaN(data26)) {
              const err72 = { instancePath: instancePath + "/invariant/tvMax", schemaPath: "#/properties/invariant/properties/tvMax/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.invariant.properties.tvMax, data: data26 };
              if (vErrors === null) {
                vErrors = [err72];
              } else {
                vErrors.push(err72);
              }
              errors++;
            }
          } else {
            const err73 = { instancePath: instancePath + "/invariant/tvMax", schemaPath: "#/properties/invariant/properties/tvMax/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.invariant.properties.tvMax.type, parentSchema: schema23.properties.invariant.properties.tvMax, data: data26 };
            if (vErrors === null) {
              vErrors = [err73];
            } else {
              vErrors.push(err73);
            }
            errors++;
          }
        }
        if (data22.correctness !== void 0) {
          if (!validate55(data22.correctness, { instancePath: instancePath + "/invariant/correctness", parentData: data22, parentDataProperty: "correctness", rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
            errors = vErrors.length;
          }
        }
        if (data22.savings !== void 0) {
          if (!validate55(data22.savings, { instancePath: instancePath + "/invariant/savings", parentData: data22, parentDataProperty: "savings", rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err74 = { instancePath: instancePath + "/invariant", schemaPath: "#/properties/invariant/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.properties.invariant.type, parentSchema: schema23.properties.invariant, data: data22 };
        if (vErrors === null) {
          vErrors = [err74];
        } else {
          vErrors.push(err74);
        }
        errors++;
      }
    }
    if (data.speedupBoundary !== void 0) {
      let data29 = data.speedupBoundary;
      if (data29 && typeof data29 == "object" && !Array.isArray(data29)) {
        if (data29.draftCost === void 0) {
          const err75 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/required", keyword: "required", params: { missingProperty: "draftCost" }, message: "must have required property 'draftCost'", schema: schema23.properties.speedupBoundary.required, parentSchema: schema23.properties.speedupBoundary, data: data29 };
          if (vErrors === null) {
            vErrors = [err75];
          } else {
            vErrors.push(err75);
          }
          errors++;
        }
        if (data29.breakEvenAlpha === void 0) {
          const err76 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/required", keyword: "required", params: { missingProperty: "breakEvenAlpha" }, message: "must have required property 'breakEvenAlpha'", schema: schema23.properties.speedupBoundary.required, parentSchema: schema23.properties.speedupBoundary, data: data29 };
          if (vErrors === null) {
            vErrors = [err76];
          } else {
            vErrors.push(err76);
          }
          errors++;
        }
        if (data29.meanAlpha === void 0) {
          const err77 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/required", keyword: "required", params: { missingProperty: "meanAlpha" }, message: "must have required property 'meanAlpha'", schema: schema23.properties.speedupBoundary.required, parentSchema: schema23.properties.speedupBoundary, data: data29 };
          if (vErrors === null) {
            vErrors = [err77];
          } else {
            vErrors.push(err77);
          }
          errors++;
        }
        if (data29.optimalK === void 0) {
          const err78 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/required", keyword: "required", params: { missingProperty: "optimalK" }, message: "must have required property 'optimalK'", schema: schema23.properties.speedupBoundary.required, parentSchema: schema23.properties.speedupBoundary, data: data29 };
          if (vErrors === null) {
            vErrors = [err78];
          } else {
            vErrors.push(err78);
          }
          errors++;
        }
        if (data29.pays === void 0) {
          const err79 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/required", keyword: "required", params: { missingProperty: "pays" }, message: "must have required property 'pays'", schema: schema23.properties.speedupBoundary.required, parentSchema: schema23.properties.speedupBoundary, data: data29 };
          if (vErrors === null) {
            vErrors = [err79];
          } else {
            vErrors.push(err79);
          }
          errors++;
        }
        if (data29.sentence === void 0) {
          const err80 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/required", keyword: "required", params: { missingProperty: "sentence" }, message: "must have required property 'sentence'", schema: schema23.properties.speedupBoundary.required, parentSchema: schema23.properties.speedupBoundary, data: data29 };
          if (vErrors === null) {
            vErrors = [err80];
          } else {
            vErrors.push(err80);
          }
          errors++;
        }
        for (const key5 in data29) {
          if (!(key5 === "draftCost" || key5 === "breakEvenAlpha" || key5 === "meanAlpha" || key5 === "optimalK" || key5 === "pays" || key5 === "sentence")) {
            const err81 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key5 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23.properties.speedupBoundary, data: data29 };
            if (vErrors === null) {
              vErrors = [err81];
            } else {
              vErrors.push(err81);
            }
            errors++;
          }
        }
        if (data29.draftCost !== void 0) {
          let data30 = data29.draftCost;
          if (typeof data30 == "number" && isFinite(data30)) {
            if (data30 > 1 || isNaN(data30)) {
              const err82 = { instancePath: instancePath + "/speedupBoundary/draftCost", schemaPath: "#/properties/speedupBoundary/properties/draftCost/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.speedupBoundary.properties.draftCost, data: data30 };
              if (vErrors === null) {
                vErrors = [err82];
              } else {
                vErrors.push(err82);
              }
              errors++;
            }
            if (data30 < 0 || isNaN(data30)) {
              const err83 = { instancePath: instancePath + "/speedupBoundary/draftCost", schemaPath: "#/properties/speedupBoundary/properties/draftCost/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.speedupBoundary.properties.draftCost, data: data30 };
              if (vErrors === null) {
                vErrors = [err83];
              } else {
                vErrors.push(err83);
              }
              errors++;
            }
          } else {
            const err84 = { instancePath: instancePath + "/speedupBoundary/draftCost", schemaPath: "#/properties/speedupBoundary/properties/draftCost/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.speedupBoundary.properties.draftCost.type, parentSchema: schema23.properties.speedupBoundary.properties.draftCost, data: data30 };
            if (vErrors === null) {
              vErrors = [err84];
            } else {
              vErrors.push(err84);
            }
            errors++;
          }
        }
        if (data29.breakEvenAlpha !== void 0) {
          let data31 = data29.breakEvenAlpha;
          if (typeof data31 == "number" && isFinite(data31)) {
            if (data31 > 1 || isNaN(data31)) {
              const err85 = { instancePath: instancePath + "/speedupBoundary/breakEvenAlpha", schemaPath: "#/properties/speedupBoundary/properties/breakEvenAlpha/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.speedupBoundary.properties.breakEvenAlpha, data: data31 };
              if (vErrors === null) {
                vErrors = [err85];
              } else {
                vErrors.push(err85);
              }
              errors++;
            }
            if (data31 < 0 || isNaN(data31)) {
              const err86 = { instancePath: instancePath + "/speedupBoundary/breakEvenAlpha", schemaPath: "#/properties/speedupBoundary/properties/breakEvenAlpha/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.speedupBoundary.properties.breakEvenAlpha, data: data31 };
              if (vErrors === null) {
                vErrors = [err86];
              } else {
                vErrors.push(err86);
              }
              errors++;
            }
          } else {
            const err87 = { instancePath: instancePath + "/speedupBoundary/breakEvenAlpha", schemaPath: "#/properties/speedupBoundary/properties/breakEvenAlpha/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.speedupBoundary.properties.breakEvenAlpha.type, parentSchema: schema23.properties.speedupBoundary.properties.breakEvenAlpha, data: data31 };
            if (vErrors === null) {
              vErrors = [err87];
            } else {
              vErrors.push(err87);
            }
            errors++;
          }
        }
        if (data29.meanAlpha !== void 0) {
          let data32 = data29.meanAlpha;
          if (typeof data32 == "number" && isFinite(data32)) {
            if (data32 > 1 || isNaN(data32)) {
              const err88 = { instancePath: instancePath + "/speedupBoundary/meanAlpha", schemaPath: "#/properties/speedupBoundary/properties/meanAlpha/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.speedupBoundary.properties.meanAlpha, data: data32 };
              if (vErrors === null) {
                vErrors = [err88];
              } else {
                vErrors.push(err88);
              }
              errors++;
            }
            if (data32 < 0 || isNaN(data32)) {
              const err89 = { instancePath: instancePath + "/speedupBoundary/meanAlpha", schemaPath: "#/properties/speedupBoundary/properties/meanAlpha/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.speedupBoundary.properties.meanAlpha, data: data32 };
              if (vErrors === null) {
                vErrors = [err89];
              } else {
                vErrors.push(err89);
              }
              errors++;
            }
          } else {
            const err90 = { instancePath: instancePath + "/speedupBoundary/meanAlpha", schemaPath: "#/properties/speedupBoundary/properties/meanAlpha/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.speedupBoundary.properties.meanAlpha.type, parentSchema: schema23.properties.speedupBoundary.properties.meanAlpha, data: data32 };
            if (vErrors === null) {
              vErrors = [err90];
            } else {
              vErrors.push(err90);
            }
            errors++;
          }
        }
        if (data29.optimalK !== void 0) {
          let data33 = data29.optimalK;
          if (!(typeof data33 == "number" && (!(data33 % 1) && !isNaN(data33)) && isFinite(data33))) {
            const err91 = { instancePath: instancePath + "/speedupBoundary/optimalK", schemaPath: "#/properties/speedupBoundary/properties/optimalK/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.speedupBoundary.properties.optimalK.type, parentSchema: schema23.properties.speedupBoundary.properties.optimalK, data: data33 };
            if (vErrors === null) {
              vErrors = [err91];
            } else {
              vErrors.push(err91);
            }
            errors++;
          }
          if (typeof data33 == "number" && isFinite(data33)) {
            if (data33 > 16 || isNaN(data33)) {
              const err92 = { instancePath: instancePath + "/speedupBoundary/optimalK", schemaPath: "#/properties/speedupBoundary/properties/optimalK/maximum", keyword: "maximum", params: { comparison: "<=", limit: 16 }, message: "must be <= 16", schema: 16, parentSchema: schema23.properties.speedupBoundary.properties.optimalK, data: data33 };
              if (vErrors === null) {
                vErrors = [err92];
              } else {
                vErrors.push(err92);
              }
              errors++;
            }
            if (data33 < 1 || isNaN(data33)) {
              const err93 = { instancePath: instancePath + "/speedupBoundary/optimalK", schemaPath: "#/properties/speedupBoundary/properties/optimalK/minimum", keyword: "minimum", params: { comparison: ">=", limit: 1 }, message: "must be >= 1", schema: 1, parentSchema: schema23.properties.speedupBoundary.properties.optimalK, data: data33 };
              if (vErrors === null) {
                vErrors = [err93];
              } else {
                vErrors.push(err93);
              }
              errors++;
            }
          }
        }
        if (data29.pays !== void 0) {
          let data34 = data29.pays;
          if (typeof data34 !== "boolean") {
            const err94 = { instancePath: instancePath + "/speedupBoundary/pays", schemaPath: "#/properties/speedupBoundary/properties/pays/type", keyword: "type", params: { type: "boolean" }, message: "must be boolean", schema: schema23.properties.speedupBoundary.properties.pays.type, parentSchema: schema23.properties.speedupBoundary.properties.pays, data: data34 };
            if (vErrors === null) {
              vErrors = [err94];
            } else {
              vErrors.push(err94);
            }
            errors++;
          }
        }
        if (data29.sentence !== void 0) {
          if (!validate55(data29.sentence, { instancePath: instancePath + "/speedupBoundary/sentence", parentData: data29, parentDataProperty: "sentence", rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err95 = { instancePath: instancePath + "/speedupBoundary", schemaPath: "#/properties/speedupBoundary/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.properties.speedupBoundary.type, parentSchema: schema23.properties.speedupBoundary, data: data29 };
        if (vErrors === null) {
          vErrors = [err95];
        } else {
          vErrors.push(err95);
        }
        errors++;
      }
    }
    if (data.nextRepair !== void 0) {
      if (!validate55(data.nextRepair, { instancePath: instancePath + "/nextRepair", parentData: data, parentDataProperty: "nextRepair", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate55.errors : vErrors.concat(validate55.errors);
        errors = vErrors.length;
      }
    }
    if (data.settings !== void 0) {
      let data37 = data.settings;
      if (data37 && typeof data37 == "object" && !Array.isArray(data37)) {
        if (data37.match === void 0) {
          const err96 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "match" }, message: "must have required property 'match'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err96];
          } else {
            vErrors.push(err96);
          }
          errors++;
        }
        if (data37.k === void 0) {
          const err97 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "k" }, message: "must have required property 'k'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err97];
          } else {
            vErrors.push(err97);
          }
          errors++;
        }
        if (data37.draft_cost === void 0) {
          const err98 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "draft_cost" }, message: "must have required property 'draft_cost'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err98];
          } else {
            vErrors.push(err98);
          }
          errors++;
        }
        if (data37.verify === void 0) {
          const err99 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "verify" }, message: "must have required property 'verify'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err99];
          } else {
            vErrors.push(err99);
          }
          errors++;
        }
        if (data37.repair === void 0) {
          const err100 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "repair" }, message: "must have required property 'repair'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err100];
          } else {
            vErrors.push(err100);
          }
          errors++;
        }
        if (data37.greedy === void 0) {
          const err101 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "greedy" }, message: "must have required property 'greedy'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err101];
          } else {
            vErrors.push(err101);
          }
          errors++;
        }
        if (data37.seed === void 0) {
          const err102 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "seed" }, message: "must have required property 'seed'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err102];
          } else {
            vErrors.push(err102);
          }
          errors++;
        }
        if (data37.tokens === void 0) {
          const err103 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "tokens" }, message: "must have required property 'tokens'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err103];
          } else {
            vErrors.push(err103);
          }
          errors++;
        }
        if (data37.prompt === void 0) {
          const err104 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "prompt" }, message: "must have required property 'prompt'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err104];
          } else {
            vErrors.push(err104);
          }
          errors++;
        }
        if (data37.tpot_ms === void 0) {
          const err105 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "tpot_ms" }, message: "must have required property 'tpot_ms'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err105];
          } else {
            vErrors.push(err105);
          }
          errors++;
        }
        if (data37.ttft_ms === void 0) {
          const err106 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/required", keyword: "required", params: { missingProperty: "ttft_ms" }, message: "must have required property 'ttft_ms'", schema: schema23.properties.settings.required, parentSchema: schema23.properties.settings, data: data37 };
          if (vErrors === null) {
            vErrors = [err106];
          } else {
            vErrors.push(err106);
          }
          errors++;
        }
        for (const key6 in data37) {
          if (!func3.call(schema23.properties.settings.properties, key6)) {
            const err107 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key6 }, message: "must NOT have additional properties", schema: false, parentSchema: schema23.properties.settings, data: data37 };
            if (vErrors === null) {
              vErrors = [err107];
            } else {
              vErrors.push(err107);
            }
            errors++;
          }
        }
        if (data37.match !== void 0) {
          let data38 = data37.match;
          if (typeof data38 == "number" && isFinite(data38)) {
            if (data38 > 1 || isNaN(data38)) {
              const err108 = { instancePath: instancePath + "/settings/match", schemaPath: "#/properties/settings/properties/match/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.settings.properties.match, data: data38 };
              if (vErrors === null) {
                vErrors = [err108];
              } else {
                vErrors.push(err108);
              }
              errors++;
            }
            if (data38 < 0 || isNaN(data38)) {
              const err109 = { instancePath: instancePath + "/settings/match", schemaPath: "#/properties/settings/properties/match/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.settings.properties.match, data: data38 };
              if (vErrors === null) {
                vErrors = [err109];
              } else {
                vErrors.push(err109);
              }
              errors++;
            }
          } else {
            const err110 = { instancePath: instancePath + "/settings/match", schemaPath: "#/properties/settings/properties/match/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.settings.properties.match.type, parentSchema: schema23.properties.settings.properties.match, data: data38 };
            if (vErrors === null) {
              vErrors = [err110];
            } else {
              vErrors.push(err110);
            }
            errors++;
          }
        }
        if (data37.k !== void 0) {
          let data39 = data37.k;
          if (!(typeof data39 == "number" && (!(data39 % 1) && !isNaN(data39)) && isFinite(data39))) {
            const err111 = { instancePath: instancePath + "/settings/k", schemaPath: "#/properties/settings/properties/k/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.settings.properties.k.type, parentSchema: schema23.properties.settings.properties.k, data: data39 };
            if (vErrors === null) {
              vErrors = [err111];
            } else {
              vErrors.push(err111);
            }
            errors++;
          }
          if (typeof data39 == "number" && isFinite(data39)) {
            if (data39 > 16 || isNaN(data39)) {
              const err112 = { instancePath: instancePath + "/settings/k", schemaPath: "#/properties/settings/properties/k/maximum", keyword: "maximum", params: { comparison: "<=", limit: 16 }, message: "must be <= 16", schema: 16, parentSchema: schema23.properties.settings.properties.k, data: data39 };
              if (vErrors === null) {
                vErrors = [err112];
              } else {
                vErrors.push(err112);
              }
              errors++;
            }
            if (data39 < 1 || isNaN(data39)) {
              const err113 = { instancePath: instancePath + "/settings/k", schemaPath: "#/properties/settings/properties/k/minimum", keyword: "minimum", params: { comparison: ">=", limit: 1 }, message: "must be >= 1", schema: 1, parentSchema: schema23.properties.settings.properties.k, data: data39 };
              if (vErrors === null) {
                vErrors = [err113];
              } else {
                vErrors.push(err113);
              }
              errors++;
            }
          }
        }
        if (data37.draft_cost !== void 0) {
          let data40 = data37.draft_cost;
          if (typeof data40 == "number" && isFinite(data40)) {
            if (data40 > 1 || isNaN(data40)) {
              const err114 = { instancePath: instancePath + "/settings/draft_cost", schemaPath: "#/properties/settings/properties/draft_cost/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1 }, message: "must be <= 1", schema: 1, parentSchema: schema23.properties.settings.properties.draft_cost, data: data40 };
              if (vErrors === null) {
                vErrors = [err114];
              } else {
                vErrors.push(err114);
              }
              errors++;
            }
            if (data40 < 0 || isNaN(data40)) {
              const err115 = { instancePath: instancePath + "/settings/draft_cost", schemaPath: "#/properties/settings/properties/draft_cost/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.settings.properties.draft_cost, data: data40 };
              if (vErrors === null) {
                vErrors = [err115];
              } else {
                vErrors.push(err115);
              }
              errors++;
            }
          } else {
            const err116 = { instancePath: instancePath + "/settings/draft_cost", schemaPath: "#/properties/settings/properties/draft_cost/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.settings.properties.draft_cost.type, parentSchema: schema23.properties.settings.properties.draft_cost, data: data40 };
            if (vErrors === null) {
              vErrors = [err116];
            } else {
              vErrors.push(err116);
            }
            errors++;
          }
        }
        if (data37.verify !== void 0) {
          let data41 = data37.verify;
          if (typeof data41 !== "boolean") {
            const err117 = { instancePath: instancePath + "/settings/verify", schemaPath: "#/properties/settings/properties/verify/type", keyword: "type", params: { type: "boolean" }, message: "must be boolean", schema: schema23.properties.settings.properties.verify.type, parentSchema: schema23.properties.settings.properties.verify, data: data41 };
            if (vErrors === null) {
              vErrors = [err117];
            } else {
              vErrors.push(err117);
            }
            errors++;
          }
        }
        if (data37.repair !== void 0) {
          let data42 = data37.repair;
          if (typeof data42 !== "boolean") {
            const err118 = { instancePath: instancePath + "/settings/repair", schemaPath: "#/properties/settings/properties/repair/type", keyword: "type", params: { type: "boolean" }, message: "must be boolean", schema: schema23.properties.settings.properties.repair.type, parentSchema: schema23.properties.settings.properties.repair, data: data42 };
            if (vErrors === null) {
              vErrors = [err118];
            } else {
              vErrors.push(err118);
            }
            errors++;
          }
        }
        if (data37.greedy !== void 0) {
          let data43 = data37.greedy;
          if (typeof data43 !== "boolean") {
            const err119 = { instancePath: instancePath + "/settings/greedy", schemaPath: "#/properties/settings/properties/greedy/type", keyword: "type", params: { type: "boolean" }, message: "must be boolean", schema: schema23.properties.settings.properties.greedy.type, parentSchema: schema23.properties.settings.properties.greedy, data: data43 };
            if (vErrors === null) {
              vErrors = [err119];
            } else {
              vErrors.push(err119);
            }
            errors++;
          }
        }
        if (data37.seed !== void 0) {
          let data44 = data37.seed;
          if (!(typeof data44 == "number" && (!(data44 % 1) && !isNaN(data44)) && isFinite(data44))) {
            const err120 = { instancePath: instancePath + "/settings/seed", schemaPath: "#/properties/settings/properties/seed/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.settings.properties.seed.type, parentSchema: schema23.properties.settings.properties.seed, data: data44 };
            if (vErrors === null) {
              vErrors = [err120];
            } else {
              vErrors.push(err120);
            }
            errors++;
          }
          if (typeof data44 == "number" && isFinite(data44)) {
            if (data44 > 2147483647 || isNaN(data44)) {
              const err121 = { instancePath: instancePath + "/settings/seed", schemaPath: "#/properties/settings/properties/seed/maximum", keyword: "maximum", params: { comparison: "<=", limit: 2147483647 }, message: "must be <= 2147483647", schema: 2147483647, parentSchema: schema23.properties.settings.properties.seed, data: data44 };
              if (vErrors === null) {
                vErrors = [err121];
              } else {
                vErrors.push(err121);
              }
              errors++;
            }
            if (data44 < 0 || isNaN(data44)) {
              const err122 = { instancePath: instancePath + "/settings/seed", schemaPath: "#/properties/settings/properties/seed/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.settings.properties.seed, data: data44 };
              if (vErrors === null) {
                vErrors = [err122];
              } else {
                vErrors.push(err122);
              }
              errors++;
            }
          }
        }
        if (data37.tokens !== void 0) {
          let data45 = data37.tokens;
          if (!(typeof data45 == "number" && (!(data45 % 1) && !isNaN(data45)) && isFinite(data45))) {
            const err123 = { instancePath: instancePath + "/settings/tokens", schemaPath: "#/properties/settings/properties/tokens/type", keyword: "type", params: { type: "integer" }, message: "must be integer", schema: schema23.properties.settings.properties.tokens.type, parentSchema: schema23.properties.settings.properties.tokens, data: data45 };
            if (vErrors === null) {
              vErrors = [err123];
            } else {
              vErrors.push(err123);
            }
            errors++;
          }
          if (typeof data45 == "number" && isFinite(data45)) {
            if (data45 > 256 || isNaN(data45)) {
              const err124 = { instancePath: instancePath + "/settings/tokens", schemaPath: "#/properties/settings/properties/tokens/maximum", keyword: "maximum", params: { comparison: "<=", limit: 256 }, message: "must be <= 256", schema: 256, parentSchema: schema23.properties.settings.properties.tokens, data: data45 };
              if (vErrors === null) {
                vErrors = [err124];
              } else {
                vErrors.push(err124);
              }
              errors++;
            }
            if (data45 < 1 || isNaN(data45)) {
              const err125 = { instancePath: instancePath + "/settings/tokens", schemaPath: "#/properties/settings/properties/tokens/minimum", keyword: "minimum", params: { comparison: ">=", limit: 1 }, message: "must be >= 1", schema: 1, parentSchema: schema23.properties.settings.properties.tokens, data: data45 };
              if (vErrors === null) {
                vErrors = [err125];
              } else {
                vErrors.push(err125);
              }
              errors++;
            }
          }
        }
        if (data37.prompt !== void 0) {
          let data46 = data37.prompt;
          if (typeof data46 === "string") {
            if (func1(data46) > 200) {
              const err126 = { instancePath: instancePath + "/settings/prompt", schemaPath: "#/properties/settings/properties/prompt/maxLength", keyword: "maxLength", params: { limit: 200 }, message: "must NOT have more than 200 characters", schema: 200, parentSchema: schema23.properties.settings.properties.prompt, data: data46 };
              if (vErrors === null) {
                vErrors = [err126];
              } else {
                vErrors.push(err126);
              }
              errors++;
            }
          } else {
            const err127 = { instancePath: instancePath + "/settings/prompt", schemaPath: "#/properties/settings/properties/prompt/type", keyword: "type", params: { type: "string" }, message: "must be string", schema: schema23.properties.settings.properties.prompt.type, parentSchema: schema23.properties.settings.properties.prompt, data: data46 };
            if (vErrors === null) {
              vErrors = [err127];
            } else {
              vErrors.push(err127);
            }
            errors++;
          }
        }
        if (data37.tpot_ms !== void 0) {
          let data47 = data37.tpot_ms;
          if (typeof data47 == "number" && isFinite(data47)) {
            if (data47 > 1e4 || isNaN(data47)) {
              const err128 = { instancePath: instancePath + "/settings/tpot_ms", schemaPath: "#/properties/settings/properties/tpot_ms/maximum", keyword: "maximum", params: { comparison: "<=", limit: 1e4 }, message: "must be <= 10000", schema: 1e4, parentSchema: schema23.properties.settings.properties.tpot_ms, data: data47 };
              if (vErrors === null) {
                vErrors = [err128];
              } else {
                vErrors.push(err128);
              }
              errors++;
            }
            if (data47 <= 0 || isNaN(data47)) {
              const err129 = { instancePath: instancePath + "/settings/tpot_ms", schemaPath: "#/properties/settings/properties/tpot_ms/exclusiveMinimum", keyword: "exclusiveMinimum", params: { comparison: ">", limit: 0 }, message: "must be > 0", schema: 0, parentSchema: schema23.properties.settings.properties.tpot_ms, data: data47 };
              if (vErrors === null) {
                vErrors = [err129];
              } else {
                vErrors.push(err129);
              }
              errors++;
            }
          } else {
            const err130 = { instancePath: instancePath + "/settings/tpot_ms", schemaPath: "#/properties/settings/properties/tpot_ms/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.settings.properties.tpot_ms.type, parentSchema: schema23.properties.settings.properties.tpot_ms, data: data47 };
            if (vErrors === null) {
              vErrors = [err130];
            } else {
              vErrors.push(err130);
            }
            errors++;
          }
        }
        if (data37.ttft_ms !== void 0) {
          let data48 = data37.ttft_ms;
          if (typeof data48 == "number" && isFinite(data48)) {
            if (data48 > 6e5 || isNaN(data48)) {
              const err131 = { instancePath: instancePath + "/settings/ttft_ms", schemaPath: "#/properties/settings/properties/ttft_ms/maximum", keyword: "maximum", params: { comparison: "<=", limit: 6e5 }, message: "must be <= 600000", schema: 6e5, parentSchema: schema23.properties.settings.properties.ttft_ms, data: data48 };
              if (vErrors === null) {
                vErrors = [err131];
              } else {
                vErrors.push(err131);
              }
              errors++;
            }
            if (data48 < 0 || isNaN(data48)) {
              const err132 = { instancePath: instancePath + "/settings/ttft_ms", schemaPath: "#/properties/settings/properties/ttft_ms/minimum", keyword: "minimum", params: { comparison: ">=", limit: 0 }, message: "must be >= 0", schema: 0, parentSchema: schema23.properties.settings.properties.ttft_ms, data: data48 };
              if (vErrors === null) {
                vErrors = [err132];
              } else {
                vErrors.push(err132);
              }
              errors++;
            }
          } else {
            const err133 = { instancePath: instancePath + "/settings/ttft_ms", schemaPath: "#/properties/settings/properties/ttft_ms/type", keyword: "type", params: { type: "number" }, message: "must be number", schema: schema23.properties.settings.properties.ttft_ms.type, parentSchema: schema23.properties.settings.properties.ttft_ms, data: data48 };
            if (vErrors === null) {
              vErrors = [err133];
            } else {
              vErrors.push(err133);
            }
            errors++;
          }
        }
      } else {
        const err134 = { instancePath: instancePath + "/settings", schemaPath: "#/properties/settings/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.properties.settings.type, parentSchema: schema23.properties.settings, data: data37 };
        if (vErrors === null) {
          vErrors = [err134];
        } else {
          vErrors.push(err134);
        }
        errors++;
      }
    }
    if (data.url !== void 0) {
      let data49 = data.url;
      if (typeof data49 === "string") {
        if (func1(data49) > 2e3) {
          const err135 = { instancePath: instancePath + "/url", schemaPath: "#/properties/url/maxLength", keyword: "maxLength", params: { limit: 2e3 }, message: "must NOT have more than 2000 characters", schema: 2e3, parentSchema: schema23.properties.url, data: data49 };
          if (vErrors === null) {
            vErrors = [err135];
          } else {
            vErrors.push(err135);
          }
          errors++;
        }
        if (!pattern3.test(data49)) {
          const err136 = { instancePath: instancePath + "/url", schemaPath: "#/properties/url/pattern", keyword: "pattern", params: { pattern: "^/station(\\?[^#]*)?$" }, message: 'must match pattern "^/station(\\?[^#]*)?$"', schema: "^/station(\\?[^#]*)?$", parentSchema: schema23.properties.url, data: data49 };
          if (vErrors === null) {
            vErrors = [err136];
          } else {
            vErrors.push(err136);
          }
          errors++;
        }
      } else {
        const err137 = { instancePath: instancePath + "/url", schemaPath: "#/properties/url/type", keyword: "type", params: { type: "string" }, message: "must be string", schema: schema23.properties.url.type, parentSchema: schema23.properties.url, data: data49 };
        if (vErrors === null) {
          vErrors = [err137];
        } else {
          vErrors.push(err137);
        }
        errors++;
      }
    }
  } else {
    const err138 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema23.type, parentSchema: schema23, data };
    if (vErrors === null) {
      vErrors = [err138];
    } else {
      vErrors.push(err138);
    }
    errors++;
  }
  validate60.errors = vErrors;
  return errors === 0;
}
validate60.evaluated = { "props": true, "dynamicProps": false, "dynamicItems": false };
var schema24 = { "enum": ["text-to-update", "tokens-and-position", "attention-routing", "rope-phase", "kv-memory", "long-context", "serving", "speculative-decoding", "evaluation", "capstone"] };
function validate68(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate68.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  if (!(data === "text-to-update" || data === "tokens-and-position" || data === "attention-routing" || data === "rope-phase" || data === "kv-memory" || data === "long-context" || data === "serving" || data === "speculative-decoding" || data === "evaluation" || data === "capstone")) {
    const err0 = { instancePath, schemaPath: "#/enum", keyword: "enum", params: { allowedValues: schema24.enum }, message: "must be equal to one of the allowed values", schema: schema24.enum, parentSchema: schema24, data };
    if (vErrors === null) {
      vErrors = [err0];
    } else {
      vErrors.push(err0);
    }
    errors++;
  }
  validate68.errors = vErrors;
  return errors === 0;
}
validate68.evaluated = { "dynamicProps": false, "dynamicItems": false };
var schema25 = { "type": "string", "format": "date-time", "maxLength": 40 };
var formats0 = require_rfc3339()["date-time"];
function validate70(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate70.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  if (typeof data === "string") {
    if (func1(data) > 40) {
      const err0 = { instancePath, schemaPath: "#/maxLength", keyword: "maxLength", params: { limit: 40 }, message: "must NOT have more than 40 characters", schema: 40, parentSchema: schema25, data };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
    if (!formats0(data)) {
      const err1 = { instancePath, schemaPath: "#/format", keyword: "format", params: { format: "date-time" }, message: 'must match format "date-time"', schema: "date-time", parentSchema: schema25, data };
      if (vErrors === null) {
        vErrors = [err1];
      } else {
        vErrors.push(err1);
      }
      errors++;
    }
  } else {
    const err2 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "string" }, message: "must be string", schema: schema25.type, parentSchema: schema25, data };
    if (vErrors === null) {
      vErrors = [err2];
    } else {
      vErrors.push(err2);
    }
    errors++;
  }
  validate70.errors = vErrors;
  return errors === 0;
}
validate70.evaluated = { "dynamicProps": false, "dynamicItems": false };
function validate77(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate77.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  const _errs2 = errors;
  let valid1 = true;
  const _errs3 = errors;
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.station !== void 0) {
      if ("serving" !== data.station) {
        const err0 = {};
        if (vErrors === null) {
          vErrors = [err0];
        } else {
          vErrors.push(err0);
        }
        errors++;
      }
    }
  }
  var _valid0 = _errs3 === errors;
  errors = _errs2;
  if (vErrors !== null) {
    if (_errs2) {
      vErrors.length = _errs2;
    } else {
      vErrors = null;
    }
  }
  if (_valid0) {
    const _errs5 = errors;
    if (data && typeof data == "object" && !Array.isArray(data)) {
      if (data.checkpoint !== void 0) {
        if (!validate54(data.checkpoint, { instancePath: instancePath + "/checkpoint", parentData: data, parentDataProperty: "checkpoint", rootData, dynamicAnchors })) {
          vErrors = vErrors === null ? validate54.errors : vErrors.concat(validate54.errors);
          errors = vErrors.length;
        }
      }
    }
    var _valid0 = _errs5 === errors;
    valid1 = _valid0;
    if (valid1) {
      var props0 = {};
      props0.checkpoint = true;
      props0.station = true;
    }
  }
  if (!valid1) {
    const err1 = { instancePath, schemaPath: "#/allOf/0/if", keyword: "if", params: { failingKeyword: "then" }, message: 'must match "then" schema', schema: schema20.allOf[0].if, parentSchema: schema20.allOf[0], data };
    if (vErrors === null) {
      vErrors = [err1];
    } else {
      vErrors.push(err1);
    }
    errors++;
  }
  const _errs8 = errors;
  let valid4 = true;
  const _errs9 = errors;
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.station !== void 0) {
      if ("speculative-decoding" !== data.station) {
        const err2 = {};
        if (vErrors === null) {
          vErrors = [err2];
        } else {
          vErrors.push(err2);
        }
        errors++;
      }
    }
  }
  var _valid1 = _errs9 === errors;
  errors = _errs8;
  if (vErrors !== null) {
    if (_errs8) {
      vErrors.length = _errs8;
    } else {
      vErrors = null;
    }
  }
  if (_valid1) {
    const _errs11 = errors;
    if (data && typeof data == "object" && !Array.isArray(data)) {
      if (data.checkpoint !== void 0) {
        if (!validate60(data.checkpoint, { instancePath: instancePath + "/checkpoint", parentData: data, parentDataProperty: "checkpoint", rootData, dynamicAnchors })) {
          vErrors = vErrors === null ? validate60.errors : vErrors.concat(validate60.errors);
          errors = vErrors.length;
        }
      }
    }
    var _valid1 = _errs11 === errors;
    valid4 = _valid1;
    if (valid4) {
      var props1 = {};
      props1.checkpoint = true;
      props1.station = true;
    }
  }
  if (!valid4) {
    const err3 = { instancePath, schemaPath: "#/allOf/1/if", keyword: "if", params: { failingKeyword: "then" }, message: 'must match "then" schema', schema: schema20.allOf[1].if, parentSchema: schema20.allOf[1], data };
    if (vErrors === null) {
      vErrors = [err3];
    } else {
      vErrors.push(err3);
    }
    errors++;
  }
  if (props0 !== true && props1 !== void 0) {
    if (props1 === true) {
      props0 = true;
    } else {
      props0 = props0 || {};
      Object.assign(props0, props1);
    }
  }
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.version === void 0) {
      const err4 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "version" }, message: "must have required property 'version'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err4];
      } else {
        vErrors.push(err4);
      }
      errors++;
    }
    if (data.station === void 0) {
      const err5 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "station" }, message: "must have required property 'station'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err5];
      } else {
        vErrors.push(err5);
      }
      errors++;
    }
    if (data.savedAt === void 0) {
      const err6 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "savedAt" }, message: "must have required property 'savedAt'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err6];
      } else {
        vErrors.push(err6);
      }
      errors++;
    }
    if (data.checkpoint === void 0) {
      const err7 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "checkpoint" }, message: "must have required property 'checkpoint'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err7];
      } else {
        vErrors.push(err7);
      }
      errors++;
    }
    for (const key0 in data) {
      if (!(key0 === "version" || key0 === "station" || key0 === "savedAt" || key0 === "checkpoint")) {
        const err8 = { instancePath, schemaPath: "#/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key0 }, message: "must NOT have additional properties", schema: false, parentSchema: schema20, data };
        if (vErrors === null) {
          vErrors = [err8];
        } else {
          vErrors.push(err8);
        }
        errors++;
      }
    }
    if (data.version !== void 0) {
      let data4 = data.version;
      if (1 !== data4) {
        const err9 = { instancePath: instancePath + "/version", schemaPath: "#/properties/version/const", keyword: "const", params: { allowedValue: 1 }, message: "must be equal to constant", schema: 1, parentSchema: schema20.properties.version, data: data4 };
        if (vErrors === null) {
          vErrors = [err9];
        } else {
          vErrors.push(err9);
        }
        errors++;
      }
    }
    if (data.station !== void 0) {
      if (!validate68(data.station, { instancePath: instancePath + "/station", parentData: data, parentDataProperty: "station", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate68.errors : vErrors.concat(validate68.errors);
        errors = vErrors.length;
      }
    }
    if (data.savedAt !== void 0) {
      if (!validate70(data.savedAt, { instancePath: instancePath + "/savedAt", parentData: data, parentDataProperty: "savedAt", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate70.errors : vErrors.concat(validate70.errors);
        errors = vErrors.length;
      }
    }
    if (data.checkpoint !== void 0) {
      let data7 = data.checkpoint;
      if (!(data7 && typeof data7 == "object" && !Array.isArray(data7))) {
        const err10 = { instancePath: instancePath + "/checkpoint", schemaPath: "#/properties/checkpoint/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema20.properties.checkpoint.type, parentSchema: schema20.properties.checkpoint, data: data7 };
        if (vErrors === null) {
          vErrors = [err10];
        } else {
          vErrors.push(err10);
        }
        errors++;
      }
    }
  } else {
    const err11 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema20.type, parentSchema: schema20, data };
    if (vErrors === null) {
      vErrors = [err11];
    } else {
      vErrors.push(err11);
    }
    errors++;
  }
  validate77.errors = vErrors;
  return errors === 0;
}
validate77.evaluated = { "props": true, "dynamicProps": false, "dynamicItems": false };
var validateExport = validate82;
var schema26 = { "type": "object", "required": ["version", "kind", "exportedAt", "entries"], "additionalProperties": false, "properties": { "version": { "const": 1 }, "kind": { "const": "tsl.route-memory.export" }, "exportedAt": { "$ref": "#/$defs/timestamp" }, "entries": { "type": "array", "maxItems": 10, "items": { "$ref": "#/$defs/entry" } } } };
function validate53(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate53.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  const _errs2 = errors;
  let valid1 = true;
  const _errs3 = errors;
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.station !== void 0) {
      if ("serving" !== data.station) {
        const err0 = {};
        if (vErrors === null) {
          vErrors = [err0];
        } else {
          vErrors.push(err0);
        }
        errors++;
      }
    }
  }
  var _valid0 = _errs3 === errors;
  errors = _errs2;
  if (vErrors !== null) {
    if (_errs2) {
      vErrors.length = _errs2;
    } else {
      vErrors = null;
    }
  }
  if (_valid0) {
    const _errs5 = errors;
    if (data && typeof data == "object" && !Array.isArray(data)) {
      if (data.checkpoint !== void 0) {
        if (!validate54(data.checkpoint, { instancePath: instancePath + "/checkpoint", parentData: data, parentDataProperty: "checkpoint", rootData, dynamicAnchors })) {
          vErrors = vErrors === null ? validate54.errors : vErrors.concat(validate54.errors);
          errors = vErrors.length;
        }
      }
    }
    var _valid0 = _errs5 === errors;
    valid1 = _valid0;
    if (valid1) {
      var props0 = {};
      props0.checkpoint = true;
      props0.station = true;
    }
  }
  if (!valid1) {
    const err1 = { instancePath, schemaPath: "#/allOf/0/if", keyword: "if", params: { failingKeyword: "then" }, message: 'must match "then" schema', schema: schema20.allOf[0].if, parentSchema: schema20.allOf[0], data };
    if (vErrors === null) {
      vErrors = [err1];
    } else {
      vErrors.push(err1);
    }
    errors++;
  }
  const _errs8 = errors;
  let valid4 = true;
  const _errs9 = errors;
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.station !== void 0) {
      if ("speculative-decoding" !== data.station) {
        const err2 = {};
        if (vErrors === null) {
          vErrors = [err2];
        } else {
          vErrors.push(err2);
        }
        errors++;
      }
    }
  }
  var _valid1 = _errs9 === errors;
  errors = _errs8;
  if (vErrors !== null) {
    if (_errs8) {
      vErrors.length = _errs8;
    } else {
      vErrors = null;
    }
  }
  if (_valid1) {
    const _errs11 = errors;
    if (data && typeof data == "object" && !Array.isArray(data)) {
      if (data.checkpoint !== void 0) {
        if (!validate60(data.checkpoint, { instancePath: instancePath + "/checkpoint", parentData: data, parentDataProperty: "checkpoint", rootData, dynamicAnchors })) {
          vErrors = vErrors === null ? validate60.errors : vErrors.concat(validate60.errors);
          errors = vErrors.length;
        }
      }
    }
    var _valid1 = _errs11 === errors;
    valid4 = _valid1;
    if (valid4) {
      var props1 = {};
      props1.checkpoint = true;
      props1.station = true;
    }
  }
  if (!valid4) {
    const err3 = { instancePath, schemaPath: "#/allOf/1/if", keyword: "if", params: { failingKeyword: "then" }, message: 'must match "then" schema', schema: schema20.allOf[1].if, parentSchema: schema20.allOf[1], data };
    if (vErrors === null) {
      vErrors = [err3];
    } else {
      vErrors.push(err3);
    }
    errors++;
  }
  if (props0 !== true && props1 !== void 0) {
    if (props1 === true) {
      props0 = true;
    } else {
      props0 = props0 || {};
      Object.assign(props0, props1);
    }
  }
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.version === void 0) {
      const err4 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "version" }, message: "must have required property 'version'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err4];
      } else {
        vErrors.push(err4);
      }
      errors++;
    }
    if (data.station === void 0) {
      const err5 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "station" }, message: "must have required property 'station'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err5];
      } else {
        vErrors.push(err5);
      }
      errors++;
    }
    if (data.savedAt === void 0) {
      const err6 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "savedAt" }, message: "must have required property 'savedAt'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err6];
      } else {
        vErrors.push(err6);
      }
      errors++;
    }
    if (data.checkpoint === void 0) {
      const err7 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "checkpoint" }, message: "must have required property 'checkpoint'", schema: schema20.required, parentSchema: schema20, data };
      if (vErrors === null) {
        vErrors = [err7];
      } else {
        vErrors.push(err7);
      }
      errors++;
    }
    for (const key0 in data) {
      if (!(key0 === "version" || key0 === "station" || key0 === "savedAt" || key0 === "checkpoint")) {
        const err8 = { instancePath, schemaPath: "#/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key0 }, message: "must NOT have additional properties", schema: false, parentSchema: schema20, data };
        if (vErrors === null) {
          vErrors = [err8];
        } else {
          vErrors.push(err8);
        }
        errors++;
      }
    }
    if (data.version !== void 0) {
      let data4 = data.version;
      if (1 !== data4) {
        const err9 = { instancePath: instancePath + "/version", schemaPath: "#/properties/version/const", keyword: "const", params: { allowedValue: 1 }, message: "must be equal to constant", schema: 1, parentSchema: schema20.properties.version, data: data4 };
        if (vErrors === null) {
          vErrors = [err9];
        } else {
          vErrors.push(err9);
        }
        errors++;
      }
    }
    if (data.station !== void 0) {
      if (!validate68(data.station, { instancePath: instancePath + "/station", parentData: data, parentDataProperty: "station", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate68.errors : vErrors.concat(validate68.errors);
        errors = vErrors.length;
      }
    }
    if (data.savedAt !== void 0) {
      if (!validate70(data.savedAt, { instancePath: instancePath + "/savedAt", parentData: data, parentDataProperty: "savedAt", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate70.errors : vErrors.concat(validate70.errors);
        errors = vErrors.length;
      }
    }
    if (data.checkpoint !== void 0) {
      let data7 = data.checkpoint;
      if (!(data7 && typeof data7 == "object" && !Array.isArray(data7))) {
        const err10 = { instancePath: instancePath + "/checkpoint", schemaPath: "#/properties/checkpoint/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema20.properties.checkpoint.type, parentSchema: schema20.properties.checkpoint, data: data7 };
        if (vErrors === null) {
          vErrors = [err10];
        } else {
          vErrors.push(err10);
        }
        errors++;
      }
    }
  } else {
    const err11 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema20.type, parentSchema: schema20, data };
    if (vErrors === null) {
      vErrors = [err11];
    } else {
      vErrors.push(err11);
    }
    errors++;
  }
  validate53.errors = vErrors;
  return errors === 0;
}
validate53.evaluated = { "props": true, "dynamicProps": false, "dynamicItems": false };
function validate82(data, { instancePath = "", parentData, parentDataProperty, rootData = data, dynamicAnchors = {} } = {}) {
  let vErrors = null;
  let errors = 0;
  const evaluated0 = validate82.evaluated;
  if (evaluated0.dynamicProps) {
    evaluated0.props = void 0;
  }
  if (evaluated0.dynamicItems) {
    evaluated0.items = void 0;
  }
  if (data && typeof data == "object" && !Array.isArray(data)) {
    if (data.version === void 0) {
      const err0 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "version" }, message: "must have required property 'version'", schema: schema26.required, parentSchema: schema26, data };
      if (vErrors === null) {
        vErrors = [err0];
      } else {
        vErrors.push(err0);
      }
      errors++;
    }
    if (data.kind === void 0) {
      const err1 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "kind" }, message: "must have required property 'kind'", schema: schema26.required, parentSchema: schema26, data };
      if (vErrors === null) {
        vErrors = [err1];
      } else {
        vErrors.push(err1);
      }
      errors++;
    }
    if (data.exportedAt === void 0) {
      const err2 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "exportedAt" }, message: "must have required property 'exportedAt'", schema: schema26.required, parentSchema: schema26, data };
      if (vErrors === null) {
        vErrors = [err2];
      } else {
        vErrors.push(err2);
      }
      errors++;
    }
    if (data.entries === void 0) {
      const err3 = { instancePath, schemaPath: "#/required", keyword: "required", params: { missingProperty: "entries" }, message: "must have required property 'entries'", schema: schema26.required, parentSchema: schema26, data };
      if (vErrors === null) {
        vErrors = [err3];
      } else {
        vErrors.push(err3);
      }
      errors++;
    }
    for (const key0 in data) {
      if (!(key0 === "version" || key0 === "kind" || key0 === "exportedAt" || key0 === "entries")) {
        const err4 = { instancePath, schemaPath: "#/additionalProperties", keyword: "additionalProperties", params: { additionalProperty: key0 }, message: "must NOT have additional properties", schema: false, parentSchema: schema26, data };
        if (vErrors === null) {
          vErrors = [err4];
        } else {
          vErrors.push(err4);
        }
        errors++;
      }
    }
    if (data.version !== void 0) {
      let data0 = data.version;
      if (1 !== data0) {
        const err5 = { instancePath: instancePath + "/version", schemaPath: "#/properties/version/const", keyword: "const", params: { allowedValue: 1 }, message: "must be equal to constant", schema: 1, parentSchema: schema26.properties.version, data: data0 };
        if (vErrors === null) {
          vErrors = [err5];
        } else {
          vErrors.push(err5);
        }
        errors++;
      }
    }
    if (data.kind !== void 0) {
      let data1 = data.kind;
      if ("tsl.route-memory.export" !== data1) {
        const err6 = { instancePath: instancePath + "/kind", schemaPath: "#/properties/kind/const", keyword: "const", params: { allowedValue: "tsl.route-memory.export" }, message: "must be equal to constant", schema: "tsl.route-memory.export", parentSchema: schema26.properties.kind, data: data1 };
        if (vErrors === null) {
          vErrors = [err6];
        } else {
          vErrors.push(err6);
        }
        errors++;
      }
    }
    if (data.exportedAt !== void 0) {
      if (!validate70(data.exportedAt, { instancePath: instancePath + "/exportedAt", parentData: data, parentDataProperty: "exportedAt", rootData, dynamicAnchors })) {
        vErrors = vErrors === null ? validate70.errors : vErrors.concat(validate70.errors);
        errors = vErrors.length;
      }
    }
    if (data.entries !== void 0) {
      let data3 = data.entries;
      if (Array.isArray(data3)) {
        if (data3.length > 10) {
          const err7 = { instancePath: instancePath + "/entries", schemaPath: "#/properties/entries/maxItems", keyword: "maxItems", params: { limit: 10 }, message: "must NOT have more than 10 items", schema: 10, parentSchema: schema26.properties.entries, data: data3 };
          if (vErrors === null) {
            vErrors = [err7];
          } else {
            vErrors.push(err7);
          }
          errors++;
        }
        const len0 = data3.length;
        for (let i0 = 0; i0 < len0; i0++) {
          if (!validate53(data3[i0], { instancePath: instancePath + "/entries/" + i0, parentData: data3, parentDataProperty: i0, rootData, dynamicAnchors })) {
            vErrors = vErrors === null ? validate53.errors : vErrors.concat(validate53.errors);
            errors = vErrors.length;
          }
        }
      } else {
        const err8 = { instancePath: instancePath + "/entries", schemaPath: "#/properties/entries/type", keyword: "type", params: { type: "array" }, message: "must be array", schema: schema26.properties.entries.type, parentSchema: schema26.properties.entries, data: data3 };
        if (vErrors === null) {
          vErrors = [err8];
        } else {
          vErrors.push(err8);
        }
        errors++;
      }
    }
  } else {
    const err9 = { instancePath, schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object", schema: schema26.type, parentSchema: schema26, data };
    if (vErrors === null) {
      vErrors = [err9];
    } else {
      vErrors.push(err9);
    }
    errors++;
  }
  validate82.errors = vErrors;
  return errors === 0;
}
validate82.evaluated = { "props": true, "dynamicProps": false, "dynamicItems": false };
var isDateTime = require_rfc3339()["date-time"];
export {
  isDateTime,
  validateEntry,
  validateExport
};
