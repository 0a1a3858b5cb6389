import type { Rpc, RpcRequest, RpcResponse } from '@chronicler/contracts';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Bus, MessageMeta, RequestOptions, Subscription } from '../bus/types.ts';
import { ServiceError } from '../errors.ts';

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = checkers.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    checkers.set(schema, c);
  }
  return c;
}

/** Throws ServiceError('bad_request') naming the first offending field. */
export function assertValid<S extends TSchema>(schema: S, value: unknown, what = 'request'): void {
  const c = checker(schema);
  if (c.Check(value)) return;
  const first = c.Errors(value).First();
  const where = first?.path ? ` at ${first.path}` : '';
  throw new ServiceError('bad_request', `Invalid ${what}${where}: ${first?.message ?? 'does not match'}`);
}

/** Calls an Rpc over the bus; errors arrive as ServiceError (see Bus.request). */
export function call<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  request: RpcRequest<R>,
  opts?: RequestOptions,
): Promise<RpcResponse<R>> {
  return bus.request<RpcResponse<R>>(endpoint.subject, request, opts);
}

/**
 * Serves an Rpc in the service's queue group (replicas share the load). The request is
 * validated with the Rpc's schema before the handler sees it: type hints are not validation.
 */
export function serve<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  handler: (request: RpcRequest<R>, meta: MessageMeta) => Promise<RpcResponse<R>> | RpcResponse<R>,
): Subscription {
  return bus.handle(
    endpoint.subject,
    async (payload, meta) => {
      assertValid(endpoint.request, payload);
      return handler(payload as RpcRequest<R>, meta);
    },
    { queue: endpoint.service },
  );
}
