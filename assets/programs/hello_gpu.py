"""Hello, GPU: train a small Keras model and say where it ran. Written by tf-gpu-wizard.

Run it with the environment active:  python hello_gpu.py   (--cpu: a CPU-only setup is fine)
"""

import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # hide TensorFlow's start-up chatter
import tensorflow as tf

print("TensorFlow", tf.__version__)
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    print("GPU:", gpu.name, tf.config.experimental.get_device_details(gpu).get("device_name", ""))
if not gpus and "--cpu" not in sys.argv:
    sys.exit("TensorFlow sees no GPU. `~/.local/bin/tf-gpu-wizard doctor` finds out why.")

# A small, learnable problem: which side of a random plane is each point on? Three epochs learn it
# (accuracy about 0.9) in under a second on a CPU: enough to prove training works.
EPOCHS = 3
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
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    history = model.fit(x, y, epochs=EPOCHS, batch_size=128, verbose=0)
kernel = model.layers[0].kernel  # Keras 3 wraps the tf.Variable (.value); Keras 2 does not
where = getattr(getattr(kernel, "value", kernel), "device", "") or "?"
accuracy = history.history["accuracy"][-1]
print(f"Trained {EPOCHS} epochs in {time.perf_counter() - start:.1f} s on {where}; accuracy {accuracy:.2f}")
if gpus and "GPU" not in where.upper():
    sys.exit("The model's weights are not on the GPU.")
if accuracy < 0.8:
    sys.exit("The model did not learn: something is wrong with this TensorFlow.")
print("Hello, GPU!" if gpus else "Hello from the CPU: TensorFlow works.")
