/**
 * The JSON Schema validator the SDK client checks a tool's `structuredContent` with, against the
 * outputSchema `tools/list` just returned. The SDK's default gives every Client its own Ajv provider,
 * so every run built a new Ajv instance and compiled the listed schema again: about 4 ms of CPU per
 * run, the largest single cost of a verdict on a fast endpoint (npm run bench). Here one provider
 * serves the process and compiles each distinct schema once.
 *
 * Same checks as the SDK's default: the SDK's own Ajv provider, per dialect, with its defaults. Each
 * distinct schema (by its JSON text, so a changed schema is compiled afresh) gets a provider of its
 * own, because Ajv registers a schema's `$id`: a changed schema under the same `$id` must never meet
 * the old one, which a shared instance would hand back.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

/** Distinct schemas kept: more than a payload's targets (25), so a warm Lambda compiles each once. */
export const MAX_CACHED_SCHEMAS = 64;

export class CompiledSchemaCache implements jsonSchemaValidator {
  private readonly compiled = new Map<string, JsonSchemaValidator<unknown>>();

  constructor(private readonly maxSchemas = MAX_CACHED_SCHEMAS) {}

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.compiled.get(key);
    if (validator) {
      // Least recently used goes first: refresh this one's place.
      this.compiled.delete(key);
    } else {
      validator = new AjvJsonSchemaValidator().getValidator(schema);
      if (this.compiled.size >= this.maxSchemas) this.compiled.delete(this.compiled.keys().next().value!);
    }
    this.compiled.set(key, validator);
    return validator as JsonSchemaValidator<T>;
  }
}

/** The process's one cache, shared by every session of every run. */
export const outputSchemaValidator = new CompiledSchemaCache();
