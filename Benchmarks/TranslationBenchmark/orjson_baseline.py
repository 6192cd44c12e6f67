"""The translation benchmark's baseline: Python's orjson doing a bare loads + dumps of each
request file given, best of 3 runs of N iterations. Prints `name bytes ops_per_second` lines."""
import sys
import time

import orjson


def best(data: bytes, iterations: int) -> float:
    loads, dumps = orjson.loads, orjson.dumps
    fastest = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(iterations):
            dumps(loads(data))
        fastest = max(fastest, iterations / (time.perf_counter() - start))
    return fastest


def main() -> None:
    iterations = int(sys.argv[1])
    for path in sys.argv[2:]:
        with open(path, "rb") as file:
            data = file.read()
        name = path.rsplit("/", 1)[-1].removesuffix(".json")
        print(name, len(data), round(best(data, iterations)))


if __name__ == "__main__":
    main()
