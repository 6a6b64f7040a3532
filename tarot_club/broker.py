"""The Redis transport of the Celery broker, with two corrections for a lost connection to
Redis. Installed for the `redis://` and `rediss://` schemes by tarot_club/celery.py.

1. Unacknowledged messages of a lost connection are left where they are. Celery closes the
   lost connection before the consumer's channel; kombu's channel close then restores the
   unacknowledged messages (a task waiting for its countdown, a running one) by opening a
   client from that closed connection, which raises AttributeError ("'NoneType' object has
   no attribute 'hostname'") and kills the worker ("Unrecoverable error"). Here a channel
   whose connection is gone leaves those messages in Redis' unacked hash, from which kombu
   restores them to the queue after the visibility timeout (CELERY_VISIBILITY_TIMEOUT); if
   Redis lost them with its data, the sweep (scoring/rankings/sweep.py) catches up from the database.

2. A task that ends after its channel was closed is acknowledged on the new connection.
   With late acknowledgement (CELERY_TASK_ACKS_LATE) a task that was running when Redis went
   away is acknowledged through the channel that delivered it, closed by then: kombu's ack
   removes the message from the unacked hash through a client of that channel, whose
   connection is None, and the AttributeError ("'NoneType' object has no attribute
   'client'", in `_connparams`) kills the worker. Here the acknowledgement of a closed
   channel is kept in this process and carried out through the next open channel to the
   same Redis database, at once if one is open, else as soon as the worker has reconnected
   (when the channel is created). The task has run to its end, so removing its entry is
   what keeps Redis from delivering it again after the visibility timeout (a second
   document build, a second ranking computation for nothing); if the process stops before
   reconnecting, the entry stays and the message is delivered again, which the tasks
   tolerate (they are idempotent). A rejection with requeue on a closed channel leaves the
   message in the unacked hash, delivered again after the visibility timeout as in (1).
"""

from __future__ import annotations

import logging
import threading
import weakref

from kombu.transport import redis, virtual

logger = logging.getLogger(__name__)

# (host, port, database, key prefix, unacked hash, unacked index): one Redis database's
# bookkeeping of unacknowledged messages, as seen by the channels of this process.
BrokerKey = tuple[object, ...]

_lock = threading.Lock()
_pending_acks: dict[BrokerKey, set[str]] = {}
_open_channels: weakref.WeakSet[Channel] = weakref.WeakSet()


def pending_acks() -> dict[BrokerKey, set[str]]:
    """A copy of the acknowledgements waiting for a connection, by Redis database."""
    with _lock:
        return {key: set(tags) for key, tags in _pending_acks.items() if tags}


class QoS(redis.QoS):
    def restore_unacked(self, client=None):
        transport = self.channel.connection
        if client is None and (transport is None or transport.client is None):
            self._delivered.clear()  # still in Redis' unacked hash: restored after the timeout
            return None
        return super().restore_unacked(client)

    def ack(self, delivery_tag):
        if self.channel.connection is not None:
            return super().ack(delivery_tag)
        virtual.QoS.ack(self, delivery_tag)  # forget it here; Redis is told on a new channel
        with _lock:
            _pending_acks.setdefault(self.channel.broker_key, set()).add(delivery_tag)
        _flush_pending_acks(self.channel.broker_key)
        return None

    def reject(self, delivery_tag, requeue=False):
        if self.channel.connection is not None:
            return super().reject(delivery_tag, requeue=requeue)
        if not requeue:
            return self.ack(delivery_tag)
        virtual.QoS.ack(self, delivery_tag)  # still in Redis' unacked hash: redelivered
        return None


class Channel(redis.Channel):
    QoS = QoS

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)  # raises when Redis does not answer
        conninfo = self.connection.client
        self.broker_key: BrokerKey = (
            conninfo.hostname,
            conninfo.port,
            self._prepare_virtual_host(conninfo.virtual_host),
            self.global_keyprefix,
            self.unacked_key,
            self.unacked_index_key,
        )
        with _lock:
            _open_channels.add(self)
        _flush_pending_acks(self.broker_key)

    def close(self):
        with _lock:
            _open_channels.discard(self)
        super().close()

    def remove_acknowledged(self, tags: set[str]) -> None:
        """Remove the messages `tags` from the unacked hash and index, in one round trip."""
        with self.conn_or_acquire() as client:
            pipe = client.pipeline()
            for tag in tags:
                pipe.zrem(self.unacked_index_key, tag).hdel(self.unacked_key, tag)
            pipe.execute()


def _flush_pending_acks(key: BrokerKey) -> None:
    """Carry out the waiting acknowledgements of `key` through an open channel, if any; on a
    connection error they wait for the next channel."""
    with _lock:
        tags = _pending_acks.pop(key, set())
        channel = next(
            (c for c in _open_channels if c.connection is not None and c.broker_key == key),
            None,
        )
        if tags and channel is None:
            _pending_acks[key] = tags
            return
    if not tags or channel is None:
        return
    try:
        channel.remove_acknowledged(tags)
    except channel.connection_errors:
        with _lock:
            _pending_acks.setdefault(key, set()).update(tags)
        logger.warning("Redis does not answer: acknowledgements waiting for it: %d", len(tags))
        return
    logger.info("Tasks that ended while Redis was away, now acknowledged: %d", len(tags))


class Transport(redis.Transport):
    Channel = Channel
