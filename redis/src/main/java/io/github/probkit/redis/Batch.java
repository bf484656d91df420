package io.github.probkit.redis;

import io.github.probkit.redis.RedisStructure.Arg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.Response;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The commands of one pipelined round trip, grouped by the key of the batch they serve, so that
 * after a failure the keys whose every command was acknowledged can be counted.
 *
 * <p>{@code BITFIELD} commands ({@link RedisStructure.Cmd}) are not sent one by one: {@link #flush}
 * sends those of each hash slot as one guarded script (bitfields.lua), which checks that the
 * structure's keys exist at their size and still belong to it before any of them runs.
 */
@SuppressWarnings("unchecked") // the checks' replies, typed by the commands that queued them
final class Batch {
  final AbstractPipeline pipe;
  private final RedisStructure structure;
  private final List<Response<?>> responses = new ArrayList<>();
  private final Map<Integer, List<Pending>> groups = new LinkedHashMap<>();
  private int[] ends = new int[16];

  /**
   * Whether this is a retry of a batch whose reply was lost: its writes may have been applied
   * already, so what a key's reply says about its state before the batch is unknown.
   */
  boolean retried;

  private int keys;

  /** The replicas that must confirm each write (0: none), within waitMillis. */
  private final int replicas;

  private final long waitMillis;
  private final List<Response<Long>> waits = new ArrayList<>();
  private int writes;

  Batch(AbstractPipeline pipe, RedisStructure structure, int replicas, long waitMillis) {
    this.pipe = pipe;
    this.structure = structure;
    this.replicas = replicas;
    this.waitMillis = waitMillis;
  }

  /** Queues a script that writes, with a {@code WAIT} after it on its node when asked for. */
  Response<Object> eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
    Response<Object> r = pipe.eval(script, keys, args);
    wrote(keys.get(0));
    return add(r);
  }

  private void wrote(byte[] key) {
    writes++;
    if (replicas > 0) {
      waits.add(pipe.waitReplicas(key, replicas, waitMillis));
    }
  }

  /** The commands of the batch that write: scripts, each atomic. */
  int writes() {
    return writes;
  }

  /** After the round trip: null, or how a write's {@code WAIT} fell short. */
  String unreplicated() {
    for (Response<Long> w : waits) {
      long got = w.get();
      if (got < replicas) {
        return "confirmed by "
            + got
            + " of "
            + replicas
            + (replicas == 1 ? " replica" : " replicas")
            + " within "
            + waitMillis
            + " ms";
      }
    }
    return null;
  }

  <T> Response<T> add(Response<T> r) {
    responses.add(r);
    return r;
  }

  /** Queues a BITFIELD command, sent by {@link #flush} with the others of its hash slot. */
  void add(RedisStructure.Cmd c) {
    Pending p = new Pending(c);
    groups.computeIfAbsent(structure.slotGroup(c.shard), g -> new ArrayList<>()).add(p);
    add(p);
  }

  /**
   * Sends the queued BITFIELD commands: one guarded script per hash slot, in which the commands on
   * one key, in order, are joined into BITFIELDs of up to {@link #CALL_ARGS} arguments. A script
   * pays about 3 µs per command it calls; joined, a batch costs what the commands cost.
   */
  void flush() {
    for (List<Pending> group : groups.values()) {
      if (group.stream().allMatch(p -> p.cmd.command == RedisStructure.BITFIELD_RO)) {
        sendReads(group);
        continue;
      }
      List<byte[]> keyList = new ArrayList<>();
      Map<Integer, Integer> index = new LinkedHashMap<>();
      for (Pending p : group) {
        if (index.putIfAbsent(p.cmd.shard, keyList.size() + 1) == null) {
          keyList.add(p.cmd.key);
        }
      }
      CommandArguments eval =
          new CommandArguments(Command.EVAL)
              .add(new Arg(Scripts.BITFIELDS))
              .add(Arg.of(keyList.size()));
      for (byte[] k : keyList) {
        eval.key(new Arg(k));
      }
      int calls = 0;
      for (Map.Entry<Integer, Integer> key : index.entrySet()) {
        List<Pending> call = new ArrayList<>();
        int size = 0;
        int results = 0;
        for (Pending p : group) {
          if (p.cmd.shard != key.getKey()) {
            continue;
          }
          if (!call.isEmpty()
              && (size + p.cmd.args.size() > CALL_ARGS
                  || p.cmd.command != call.get(0).cmd.command)) {
            addCall(eval, key.getValue(), call, size);
            calls++;
            call.clear();
            size = 0;
            results = 0;
          }
          p.bind(calls, results);
          results += p.cmd.results;
          size += p.cmd.args.size();
          call.add(p);
        }
        addCall(eval, key.getValue(), call, size);
        calls++;
      }
      int g = 0;
      for (Map.Entry<Integer, Integer> e : index.entrySet()) {
        if (e.getKey() >= 0) {
          eval.add(Arg.of(e.getValue())).add(Arg.of(structure.payloadBytes(e.getKey())));
          g++;
        }
      }
      eval.add(Arg.of(g)).add(new Arg(RedisStructure.bytes(structure.meta.id)));
      Response<Object> reply =
          pipe.executeCommand(new CommandObject<>(eval, BuilderFactory.RAW_OBJECT));
      wrote(keyList.get(0));
      for (Pending p : group) {
        p.script = reply;
      }
    }
    groups.clear();
  }

  /**
   * Sends reads as they are, without a script (whose arguments cost about 1 µs each in Redis),
   * between two checks of every key they read: its length and the id at its end, before and after,
   * on the same connection. Between the two nothing can delete, evict or replace a key unnoticed (a
   * structure created again has another id), so a read that passed both is a read of this
   * structure.
   */
  private void sendReads(List<Pending> group) {
    Map<Integer, byte[]> touched = new LinkedHashMap<>();
    group.forEach(p -> touched.putIfAbsent(p.cmd.shard, p.cmd.key));
    queueChecks(touched);
    for (Pending p : group) {
      CommandArguments args = new CommandArguments(Command.BITFIELD_RO).key(new Arg(p.cmd.key));
      p.cmd.args.forEach(args::add);
      p.direct = pipe.executeCommand(new CommandObject<>(args, BuilderFactory.LONG_LIST));
    }
    queueChecks(touched);
  }

  /** The pending checks of {@link #sendReads}: shard, STRLEN, the id at the end. */
  private final List<Object[]> checks = new ArrayList<>();

  private void queueChecks(Map<Integer, byte[]> touched) {
    touched.forEach(
        (shard, key) -> {
          long len = structure.payloadBytes(shard);
          checks.add(
              new Object[] {
                key,
                len,
                pipe.strlen(key),
                pipe.getrange(key, len, len + RedisStructure.ID_BYTES - 1)
              });
        });
  }

  /**
   * After the round trip: null, or why a key that reads went through is not this structure's at its
   * size (the words of guard.lua).
   */
  String failedCheck() {
    for (Object[] c : checks) {
      String key = new String((byte[]) c[0], java.nio.charset.StandardCharsets.UTF_8);
      long len = (Long) c[1];
      long n = ((Response<Long>) c[2]).get();
      if (n == 0) {
        return "key '"
            + key
            + "' does not exist: the structure was deleted, or the key evicted or expired "
            + "(docs/REDIS.md: maxmemory-policy)";
      }
      if (n != len + RedisStructure.ID_BYTES) {
        return "key '"
            + key
            + "' holds "
            + n
            + " bytes, not "
            + (len + RedisStructure.ID_BYTES)
            + ": damaged, or not written by probkit";
      }
      if (!Arrays.equals(
          ((Response<byte[]>) c[3]).get(), RedisStructure.bytes(structure.meta.id))) {
        return "key '"
            + key
            + "' belongs to another structure of the same name: it was deleted and re-created "
            + "since this client opened it";
      }
    }
    return null;
  }

  /** The arguments of one BITFIELD call of bitfields.lua: key index, count, command, arguments. */
  private static void addCall(CommandArguments eval, int key, List<Pending> call, int size) {
    eval.add(Arg.of(key)).add(Arg.of(size)).add(call.get(0).cmd.command);
    for (Pending p : call) {
      for (Rawable a : p.cmd.args) {
        eval.add(a);
      }
    }
  }

  /** Arguments per joined BITFIELD: Lua's unpack takes at most about 8,000. */
  private static final int CALL_ARGS = 4000;

  /** Closes the current key: the commands added since the previous call serve it. */
  void endKey() {
    if (keys == ends.length) {
      ends = Arrays.copyOf(ends, 2 * keys);
    }
    ends[keys++] = responses.size();
  }

  int keys() {
    return keys;
  }

  /**
   * The replies to key {@code k}'s commands; throws the reply's error, or IllegalStateException
   * when none arrived.
   */
  List<Response<?>> of(int k) {
    return responses.subList(k == 0 ? 0 : ends[k - 1], ends[k]);
  }

  /**
   * Throws the error reply of key {@code k}'s commands; a reply that never came (a cluster pipeline
   * leaves a dead node's replies unset) as the lost connection it is.
   */
  void throwReplyOf(int k) {
    for (Response<?> r : of(k)) {
      try {
        r.get();
      } catch (IllegalStateException noReply) {
        throw new JedisConnectionException("no reply (connection to the node lost)", noReply);
      }
    }
  }

  /** The keys, from the first, whose every command has a reply that is not an error. */
  int acknowledged() {
    int ok = 0;
    for (int k = 0; k < keys; k++) {
      for (Response<?> r : of(k)) {
        try {
          r.get();
        } catch (RuntimeException e) {
          return ok;
        }
      }
      ok++;
    }
    return ok;
  }

  /** A BITFIELD command's reply: its values within its joined call's reply. */
  private static final class Pending extends Response<Object> {
    final RedisStructure.Cmd cmd;
    Response<Object> script;
    Response<List<Long>> direct;
    private int call;
    private int from;

    Pending(RedisStructure.Cmd cmd) {
      super(BuilderFactory.RAW_OBJECT);
      this.cmd = cmd;
    }

    void bind(int callIndex, int firstResult) {
      call = callIndex;
      from = firstResult;
    }

    @Override
    public Object get() {
      if (direct != null) {
        return direct.get();
      }
      if (script == null) {
        throw new IllegalStateException("a command of the batch was not sent");
      }
      List<?> values = (List<?>) ((List<?>) script.get()).get(call);
      return values.subList(from, from + cmd.results);
    }
  }
}
