import { Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, ValueErrorType, type ValueError } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler } from 'fastify';
import fp from 'fastify-plugin';

/** A request that does not match its route's schema; the errors plugin answers it 400 `{detail}`. */
class InvalidRequest extends Error {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_VALIDATION';
}

type Part = 'body' | 'querystring' | 'params' | 'headers';

const PART_LABEL: Record<Part, { whole: string; field: string }> = {
  body: { whole: 'The request body', field: 'Field' },
  querystring: { whole: 'The query string', field: 'Query parameter' },
  params: { whole: 'The path', field: 'Path parameter' },
  headers: { whole: 'The headers', field: 'Header' },
};

const count = (n: unknown): string => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n));

/** One sentence for the first thing wrong: the field by its `title` (e.g. 'Group name') or its path. */
function describeError(part: Part, e: ValueError): string {
  const label = PART_LABEL[part];
  const schema = e.schema as TSchema & { title?: string };
  // The path holds the client's own keys: shortened, so a huge key is not echoed back whole.
  const fullPath = e.path.replace(/^\//, '').replaceAll('/', '.');
  const path = fullPath.length > 64 ? `${fullPath.slice(0, 64)}...` : fullPath;
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return `Unknown field '${path}'`;
  const what = schema.title ?? (path ? `${label.field} '${path}'` : label.whole);
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${what} is required`;
    case ValueErrorType.String:
      return `${what} must be a string`;
    case ValueErrorType.Number:
      return `${what} must be a number`;
    case ValueErrorType.Integer:
      return `${what} must be a whole number`;
    case ValueErrorType.Boolean:
      return `${what} must be true or false`;
    case ValueErrorType.Array:
      return `${what} must be a list`;
    case ValueErrorType.Object:
      return path ? `${what} must be an object` : `${what} must be a JSON object`;
    case ValueErrorType.StringMaxLength:
      return `${what} cannot exceed ${count(schema.maxLength)} characters`;
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1 ? `${what} cannot be empty` : `${what} is too short`;
    case ValueErrorType.ArrayMaxItems:
      return `${what} cannot have more than ${count(schema.maxItems)} items`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `${what} must be at least ${count(schema.minimum)}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `${what} must be at most ${count(schema.maximum)}`;
    default:
      return `${what} has an invalid value`;
  }
}

/**
 * Validates with the TypeBox schema itself (the contracts' schemas), not fastify's Ajv,
 * whose default `coerceTypes: 'array'` turned `{"name":123}` into '123' and `["a"]` into
 * 'a'. Bodies are JSON and must have the declared types exactly; properties a schema does
 * not declare are refused where it says `additionalProperties: false` and otherwise dropped,
 * so they never reach a service. Query strings, path parameters and headers are text by
 * nature: they are converted to the declared types (a page size of '10' to 10) first.
 */
const compileValidator: FastifySchemaCompiler<TSchema> = ({ schema, httpPart, method, url }) => {
  if (!(Kind in schema)) throw new Error(`${method} ${url}: the ${httpPart} schema is not a TypeBox schema`);
  const part = (httpPart ?? 'body') as Part;
  const check = TypeCompiler.Compile(schema);
  const refuse = (value: unknown) => {
    const first = check.Errors(value).First();
    return { error: new InvalidRequest(first ? describeError(part, first) : 'Invalid request') };
  };
  if (part === 'body') {
    return (data: unknown) => (check.Check(data) ? { value: Value.Clean(schema, data) } : refuse(data));
  }
  return (data: unknown) => {
    const value = Value.Convert(schema, Value.Default(schema, data));
    return check.Check(value) ? { value } : refuse(value);
  };
};

/** Installs the validator for every route registered after it (register it before the routes). */
export default fp(
  async (app) => {
    app.setValidatorCompiler(compileValidator);
  },
  { name: 'validation' },
);
