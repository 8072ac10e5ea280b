"""Hello, GPU: train a small Keras model and say where it ran. Written by tf-gpu-wizard.

Run it with the environment active:  python hello_gpu.py   (--cpu: a CPU-only setup is fine)
"""

import os
import sys
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # hide TensorFlow's start-up chatter
STARTED = time.perf_counter()
import tensorflow as tf  # noqa: E402 (after the log level and the clock)

print("TensorFlow", tf.__version__)
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    print("GPU:", gpu.name, tf.config.experimental.get_device_details(gpu).get("device_name", ""))
if not gpus and "--cpu" not in sys.argv:
    sys.exit("TensorFlow sees no GPU. `~/.local/bin/tf-gpu-wizard doctor` finds out why.")


def compiling_notice(done: threading.Event) -> None:
    """A GPU newer than TensorFlow's machine code (an RTX 50) compiles its kernels on the first
    start: say so, with the time so far, instead of a silent screen. Later starts use the cache."""
    while not done.wait(30):
        minutes = (time.perf_counter() - STARTED) / 60
        print(f"compiling for your GPU, expect 10-30 min, once: {minutes:.1f} min so far", flush=True)


def adam():
    """Adam without XLA. Keras 2 (TensorFlow 2.15 and older) compiles its optimizers with XLA on
    a GPU unless told; Keras 3 takes no such argument (the model's jit_compile decides)."""
    try:
        return tf.keras.optimizers.Adam(jit_compile=False)
    except (TypeError, ValueError):
        return tf.keras.optimizers.Adam()


# A small, learnable problem: which side of a random plane is each point on? Three epochs learn it
# (accuracy about 0.9) in under a second on a CPU: enough to prove training works.
EPOCHS = 3
done = threading.Event()
if gpus:
    threading.Thread(target=compiling_notice, args=(done,), daemon=True).start()
tf.random.set_seed(0)
x = tf.random.normal((4096, 32))
y = tf.cast(tf.matmul(x, tf.random.normal((32, 1))) > 0, tf.float32)
with tf.device("/GPU:0" if gpus else "/CPU:0"):
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(32,)),
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    # jit_compile=False: TensorFlow's own GPU kernels, no XLA. Keras 3 would compile with XLA on a
    # GPU, and on an RTX 50 with TensorFlow 2.21 XLA cannot compile for the GPU and stops the
    # program; without XLA the model trains on every GPU. Write the same in your own models there.
    model.compile(optimizer=adam(), loss="binary_crossentropy", metrics=["accuracy"], jit_compile=False)
    start = time.perf_counter()
    history = model.fit(x, y, epochs=EPOCHS, batch_size=128, verbose=0)
done.set()
kernel = model.layers[0].kernel  # Keras 3 wraps the tf.Variable (.value); Keras 2 does not
where = getattr(getattr(kernel, "value", kernel), "device", "") or "?"
accuracy = history.history["accuracy"][-1]
print(f"Trained {EPOCHS} epochs in {time.perf_counter() - start:.1f} s on {where}; accuracy {accuracy:.2f}")
if gpus and "GPU" not in where.upper():
    sys.exit("The model's weights are not on the GPU.")
if accuracy < 0.8:
    sys.exit("The model did not learn: something is wrong with this TensorFlow.")
# Set by the wizard's plan after its GPU check, which was the first start on a GPU whose kernels
# the driver compiles: this second start must find them in the driver's cache, not compile again.
limit = os.environ.get("TF_GPU_WIZARD_SECOND_START", "")
if gpus and limit:
    took = time.perf_counter() - STARTED
    if took > float(limit):
        sys.exit(
            f"This second start took {took:.0f} s (more than {limit} s): the driver compiled TensorFlow's"
            " kernels again, so its cache did not keep them (CUDA_CACHE_MAXSIZE, ~/.nv/ComputeCache)."
        )
    print(f"Second start: ready and trained in {took:.0f} s: the driver's compile cache held.")
print("Hello, GPU!" if gpus else "Hello from the CPU: TensorFlow works.")
