/**
 * The sessions of one attempt: the one its steps run on, every one opened (each ended when the attempt
 * ends, with DELETE unless the server forgot it), and the recovery rule for 2025-11-25: a session the
 * server forgot (404) is replaced once by a fresh one — "start a fresh session", not "outage" — and a
 * second loss is `session_lost`. A session lost for good (`lostForGood`) is the endpoint's: a gateway's
 * backends judged on it stop there (backends.ts).
 */
import { faulted, type Fault, type StepResult } from '../../base/common/step.ts';
import { Revision } from '../../base/common/verdict.ts';
import { classifyError } from './classify.ts';
import { closeSession, openSession, recoveredDetail, sessionLost, type Session, type SessionOptions } from './session.ts';
import { classifyStep, stepFailure } from './step-rows.ts';

export class Sessions {
  private active: Session | undefined;
  private readonly open: Session[] = [];
  private readonly forgotten = new Set<Session>();
  /** Set once a forgotten session was replaced by a fresh one that worked: the attempt is then degraded. */
  recovered: string | null = null;
  private broken: Fault | null = null;

  constructor(private readonly o: SessionOptions) {}

  /** The session the steps run on. */
  get current(): Session {
    if (!this.active) throw new TypeError('no session: the protocol step comes first');
    return this.active;
  }

  /** The protocol step's session; `recovered` when its handshake already needed a fresh session. */
  adopt(session: Session, recovered?: string): void {
    this.active = session;
    this.open.push(session);
    if (recovered) this.recovered = recovered;
  }

  /**
   * Runs a step's request on the current session. What it throws is classed by the step rows, except a
   * 2025 session the server forgot: that is replaced once, and the step tried again on the fresh one.
   */
  async run<T>(what: string, rpcMethod: string, request: (s: Session) => Promise<StepResult<T>>): Promise<StepResult<T>> {
    try {
      return await request(this.current);
    } catch (e) {
      if (!this.gone(rpcMethod)) return this.failed(what, e, rpcMethod);
      this.forgotten.add(this.current);
      if (this.recovered) return this.lost(sessionLost(what));
      try {
        this.adopt(await openSession('legacy', this.o));
      } catch (e2) {
        return this.lost(classifyError(`${what}: re-initialize after the session was forgotten`, e2, this.o.wire.last('initialize')));
      }
      this.recovered = recoveredDetail(what);
      return this.again(what, rpcMethod, request);
    }
  }

  /** The fault that lost the session for good (forgotten again after a fresh one, or the fresh one could not be opened), if any. */
  lostForGood(): Fault | null {
    return this.broken;
  }

  /** Ends every session: DELETE for each 2025 one the server still knows, then the client. */
  async close(): Promise<void> {
    for (const s of this.open) await closeSession(s, { sendDelete: !this.forgotten.has(s) });
  }

  private async again<T>(what: string, rpcMethod: string, request: (s: Session) => Promise<StepResult<T>>): Promise<StepResult<T>> {
    try {
      return await request(this.current);
    } catch (e) {
      if (!this.gone(rpcMethod)) return this.failed(what, e, rpcMethod);
      this.forgotten.add(this.current);
      return this.lost(sessionLost(what));
    }
  }

  private lost<T>(fault: Fault): StepResult<T> {
    this.broken = fault;
    return faulted(fault);
  }

  /** The server forgot the 2025 session: its step's request was answered 404. */
  private gone(rpcMethod: string): boolean {
    return this.current.era === Revision.legacy && this.o.wire.last(rpcMethod)?.status === 404;
  }

  private failed<T>(what: string, e: unknown, rpcMethod: string): StepResult<T> {
    return faulted(classifyStep(stepFailure(what, e, this.o.wire.exchanges, rpcMethod, this.current, this.o.run.signal.aborted)));
  }
}
