import { signWebhook } from '../domain/signature.js';

/**
 * The Standard Webhooks headers of one attempt. webhook-id is the delivery's id — the same for
 * every attempt and replay of one event at one endpoint, which is what receivers dedupe by;
 * webhook-timestamp is the attempt's (receivers refuse old timestamps against replay attacks).
 */
export function webhookHeaders(secret: string, deliveryId: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, deliveryId, timestamp, body),
  };
}
