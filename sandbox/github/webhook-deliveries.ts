// Webhook deliveries from the sandbox, as github.com makes them: a JSON POST signed with the subscription's secret
// (X-Hub-Signature-256: HMAC-SHA256 of the body), with X-GitHub-Event and X-GitHub-Delivery, one at a time in the order
// things happened, after the change is made (an API call is answered without waiting for its deliveries).
import { createHmac, randomUUID } from 'node:crypto';

export interface WebhookSubscription {
  url: string;
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  url: string;
  /** The receiver's HTTP status, or the network error. */
  status: number | string;
  payload: Record<string, unknown>;
}

export function signWebhookBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Delivers to every subscription in turn, one delivery after another in the order asked, and keeps a record. */
export class WebhookDeliveries {
  readonly subscriptions: WebhookSubscription[] = [];
  readonly deliveries: WebhookDelivery[] = [];
  private chain: Promise<void> = Promise.resolve();

  subscribe(subscription: WebhookSubscription): void {
    this.subscriptions.push(subscription);
  }

  /** Resolves once this delivery (and every one before it) has been answered, or has failed; never rejects. */
  deliver(event: string, payload: Record<string, unknown> | (() => Promise<Record<string, unknown>>)): Promise<void> {
    if (this.subscriptions.length === 0) return this.chain;
    const next = this.chain.then(async () => {
      const body = typeof payload === 'function' ? await payload() : payload;
      for (const subscription of [...this.subscriptions]) await this.post(subscription, event, body);
    }).catch(() => undefined);
    this.chain = next;
    return next;
  }

  /** Resolves when every delivery asked for so far has been made. */
  async idle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.chain;
      await current;
    } while (current !== this.chain);
  }

  private async post({ url, secret }: WebhookSubscription, event: string, payload: Record<string, unknown>): Promise<void> {
    const id = randomUUID();
    const body = JSON.stringify(payload);
    let status: number | string;
    try {
      // GitHub waits 10 s for an answer.
      const response = await fetch(url, {
        method: 'POST', body, signal: AbortSignal.timeout(10_000),
        headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/sandbox', 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': signWebhookBody(secret, body) },
      });
      await response.arrayBuffer();
      status = response.status;
    } catch (error) {
      status = (error as Error).message;
    }
    this.deliveries.push({ id, event, url, status, payload });
  }
}
