"""Webhooks: push configurations and their delivery (granular and classic push).

configs       push configuration rules: validation, masking of secrets, the answer's shape
auth_methods  the parameters of each authentication method type, and applying them to requests
signing       Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature)
events        turning shipment change journal rows into the messages receivers get
outbox        the durable outbox: fan-out, due messages, outcomes, retry schedule, retention
delivery      the background worker (WORKERS) that sends messages
"""
