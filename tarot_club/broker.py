"""The Redis transport of the Celery broker, with one correction: when the connection to
Redis is lost, the worker does not try to hand its unacknowledged messages back through the
connection that is already gone.

Celery closes the lost connection before the consumer's channel; kombu's channel close then
restores the unacknowledged messages (a task waiting for its countdown, a running one) by
opening a client from that closed connection, which raises AttributeError ("'NoneType' object
has no attribute 'hostname'") and kills the worker ("Unrecoverable error"). Here a channel
whose connection is gone leaves those messages where they are: in Redis' unacked hash, from
which kombu restores them to the queue after the visibility timeout (CELERY_VISIBILITY_TIMEOUT);
if Redis lost them with its data, the sweep (scoring/rankings/sweep.py) catches up from the database.

Installed for the `redis://` and `rediss://` schemes by tarot_club/celery.py.
"""

from __future__ import annotations

from kombu.transport import redis


class QoS(redis.QoS):
    def restore_unacked(self, client=None):
        transport = self.channel.connection
        if client is None and (transport is None or transport.client is None):
            self._delivered.clear()  # still in Redis' unacked hash: restored after the timeout
            return None
        return super().restore_unacked(client)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
