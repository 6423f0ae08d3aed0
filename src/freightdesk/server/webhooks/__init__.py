"""Webhooks: push configurations and their delivery (granular and classic push).

configs       push configuration rules: validation, masking of secrets, the answer's shape
auth_methods  the parameters of each authentication method type, and sent-back masks
credentials   presenting authentication methods to receivers (headers, tokens, mTLS)
signing       Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature)
events        turning shipment change journal rows into the messages receivers get
outbox        the durable outbox: fan-out, pending messages, outcomes, retention
journal_prune deleting shipment change journal rows no reader needs any more
schedule      the worker's in-memory view of pending messages: order, due times, fairness
sender        one attempt: the HTTP request, signed and authenticated, bounded in time
targets       where webhooks may go: not the service's own network (when saved, at connect)
delivery      the background worker (WORKERS)
operations    operators' extensions: delivery log, redelivery, ping, secret rotation
tuning        retry schedule, timeouts, concurrency, retention
"""
