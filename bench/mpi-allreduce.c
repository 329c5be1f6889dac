/*
 * The reference for `aifabric bench tcp --op all_reduce`: MPI_Allreduce timed the way nccl-tests
 * times a collective (nccl-tests src/common.cu BenchTime): per size, warm-up calls, a barrier,
 * `iters` back-to-back calls timed together, the per-call time averaged over ranks; algbw =
 * bytes / time, busbw = algbw * 2(n-1)/n (GB = 1e9 bytes); out of place, then in place
 * (MPI_IN_PLACE). Output rows follow nccl-tests' layout so the same parser reads both tools.
 * Floats, MPI_SUM. Built by bench/tcp-vs-openmpi.mjs with mpicc (libopenmpi-dev); not shipped.
 *   mpirun -np N ./mpi-allreduce -b 1M -e 64M -f 2 -n 20 -w 5
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t parse_size(const char *text) {
  char *end = NULL;
  double value = strtod(text, &end);
  switch (end && *end ? *end : ' ') {
    case 'K': case 'k': value *= 1024.0; break;
    case 'M': case 'm': value *= 1024.0 * 1024.0; break;
    case 'G': case 'g': value *= 1024.0 * 1024.0 * 1024.0; break;
    default: break;
  }
  return (size_t)value;
}

static double time_calls(float *send, float *recv, size_t count, int iters, int in_place) {
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (in_place) MPI_Allreduce(MPI_IN_PLACE, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  double seconds = (MPI_Wtime() - start) / iters;
  double sum = 0;
  MPI_Allreduce(&seconds, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  return sum / nranks;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  size_t min_bytes = 1 << 20, max_bytes = 64 << 20;
  int factor = 2, iters = 20, warmup = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-b")) min_bytes = parse_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-e")) max_bytes = parse_size(argv[i + 1]);
    else if (!strcmp(argv[i], "-f")) factor = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-n")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-w")) warmup = atoi(argv[i + 1]);
  }
  float *send = malloc(max_bytes), *recv = malloc(max_bytes);
  if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 3);
  for (size_t i = 0; i < max_bytes / sizeof(float); i++) send[i] = recv[i] = (float)((i + rank) % 17);
  if (rank == 0) {
    printf("# mpi-allreduce (aifabric bench reference): MPI_Allreduce float sum, nccl-tests layout, %d ranks\n", nranks);
    printf("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n");
    printf("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n");
  }
  for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= (size_t)factor) {
    size_t count = bytes / sizeof(float);
    for (int i = 0; i < warmup; i++) MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double times[2];
    for (int in_place = 0; in_place < 2; in_place++) times[in_place] = time_calls(send, recv, count, iters, in_place);
    if (rank == 0) {
      double factor_bus = 2.0 * (nranks - 1) / nranks;
      printf("%12zu  %12zu  %8s  %6s  %6d", count * sizeof(float), count, "float", "sum", -1);
      for (int k = 0; k < 2; k++) {
        double algbw = (double)(count * sizeof(float)) / 1e9 / times[k];
        printf("  %7.1f  %6.2f  %6.2f  %6s", times[k] * 1e6, algbw, algbw * factor_bus, "N/A");
      }
      printf("\n");
      fflush(stdout);
    }
    if (factor < 2) break;
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
