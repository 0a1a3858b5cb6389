import type { Static, TSchema } from '@sinclair/typebox';
import type { ServiceName } from './services.ts';
import { svc } from './subjects.ts';

/**
 * A request/reply endpoint on the bus: its subject and the schemas of what goes in and
 * comes out. Services serve an Rpc and callers call it through the kit's `call`, so the
 * subject is never a string literal at a call site and both sides validate the same shape.
 */
export interface Rpc<Req extends TSchema = TSchema, Res extends TSchema = TSchema> {
  readonly service: ServiceName;
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
}

export type RpcRequest<R extends Rpc> = Static<R['request']>;
export type RpcResponse<R extends Rpc> = Static<R['response']>;

export function rpc<Req extends TSchema, Res extends TSchema>(
  service: ServiceName,
  action: string,
  request: Req,
  response: Res,
): Rpc<Req, Res> {
  return { service, subject: svc(service, action), request, response };
}
