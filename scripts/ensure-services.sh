#!/usr/bin/env bash
# Makes sure PostgreSQL (127.0.0.1:5432) and NATS with JetStream (127.0.0.1:4222) answer, starting
# the machine's own services when they are down (the commands of this machine kind, node-svc).
set -euo pipefail

port_open() { (echo > "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

wait_for() {
  local name=$1 port=$2
  for _ in $(seq 1 60); do
    port_open "$port" && return 0
    sleep 0.5
  done
  echo "ensure-services: $name did not come up on 127.0.0.1:$port" >&2
  return 1
}

if ! pg_isready -q -h 127.0.0.1 -p 5432 2> /dev/null; then
  echo "ensure-services: PostgreSQL is down, starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  for _ in $(seq 1 60); do
    pg_isready -q -h 127.0.0.1 -p 5432 && break
    sleep 0.5
  done
  pg_isready -h 127.0.0.1 -p 5432
fi
echo "ensure-services: PostgreSQL is up"

if ! port_open 4222; then
  echo "ensure-services: NATS is down, starting it"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_for NATS 4222
fi
echo "ensure-services: NATS is up"
