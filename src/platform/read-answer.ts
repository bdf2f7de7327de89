import type { FastifyReply } from 'fastify';

/**
 * A read's whole answer as a plain value: its status, the headers the route sets (in the order it
 * sets them) and its body. A route that can be answered two ways (Fastify's handler, and the hot
 * path in front of Fastify) makes it with one function, and each way sends it as it is.
 */
export interface ReadAnswer {
  status: number;
  /** The route's own headers, in order (beside those every answer gets from the hooks). */
  headers: Array<[string, string]>;
  /** JSON text; undefined for an answer with no body (`304`). */
  body: string | undefined;
}

/** Headers collected in the order they are set. */
export class HeaderList {
  readonly entries: Array<[string, string]> = [];
  header(name: string, value: string): this {
    this.entries.push([name, value]);
    return this;
  }
}

/** Sends a read's answer through Fastify: its headers after the hooks', its status, its body. */
export function sendReadAnswer(reply: FastifyReply, answer: ReadAnswer): FastifyReply {
  for (const [name, value] of answer.headers) reply.header(name, value);
  reply.code(answer.status);
  if (answer.body === undefined) return reply.send(undefined as never);
  return reply.type('application/json; charset=utf-8').send(answer.body as never);
}
