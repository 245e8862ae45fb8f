// A C++ program whose hot code has the names perf demangles in every
// way tests/profiler-cxx-names.sh compares: templates (their return
// types left out), std::map (std::_Rb_tree<...>::_M_erase), lambdas,
// std::function, a functor's operator(), operator new and delete (and
// their PLT entries), a virtual destructor (aliases D1/D2), overloads,
// an anonymous namespace, clones (.isra, .constprop), an alias with a
// longer C name that perf's rule sets aside for the demangled one, a
// name perf demangles as OCaml's, and recursion (for the flame graph's
// test, tests/profiler-flamegraph.sh).
// Usage: cxx-workload [ROUNDS]   (100 rounds take some 0.1 s)

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace shapes
{
  struct shape
  {
    virtual ~shape () {}
    virtual double area () const = 0;
  };

  struct square : shape
  {
    double side;
    explicit square (double s) : side (s) {}
    double area () const override { return side * side; }
  };
}

namespace
{
  template <typename T, int N>
  struct accumulator
  {
    T total {};
    void
    operator() (T v)
    {
      for (int i = 0; i < N; ++i)
	total += v * i;
    }
  };

  __attribute__ ((noinline)) long
  weigh (int x)
  {
    long s = 0;
    for (int i = 0; i < x; ++i)
      s += i ^ x;
    return s;
  }

  // An unused parameter of a local function: gcc makes a .isra clone.
  __attribute__ ((noinline)) long
  weigh (const std::string &s)
  {
    long t = 0;
    for (char c : s)
      t = t * 31 + c;
    return t;
  }
}

// Two names of one function, both global: perf prefers the one with
// fewer leading underscores as it shows them, "twice" (demangled from
// _Z5twicel) to "_cxx_workload_twice".
__attribute__ ((noinline)) long
twice (long x)
{
  long s = 0;
  for (long i = 0; i < x; ++i)
    s += (i * i) >> 3;
  return s;
}
extern "C" long _cxx_workload_twice (long) noexcept
  __attribute__ ((alias ("_Z5twicel")));

// Recursive: in a flame graph its frames stand on one another, and a
// search for it counts each sample once.
__attribute__ ((noinline)) long
fib (int n)
{
  return n < 2 ? n : fib (n - 1) + fib (n - 2);
}

// perf takes "caml" and a capital for an OCaml name: camlCxx.spin.
extern "C" __attribute__ ((noinline)) long
camlCxx__spin_1 (long x)
{
  long s = 0;
  for (long i = 0; i < x; ++i)
    s += i % 7;
  return s;
}

template <typename K>
__attribute__ ((noinline)) K
churn (std::map<K, std::string> &m, K n)
{
  for (K i = 0; i < n; ++i)
    m[i * 7 % n] = std::to_string (i);
  K sum = 0;
  for (auto &kv : m)
    sum += kv.first + weigh (kv.second);
  m.clear ();
  return sum;
}

// UNUSED is always 0: gcc makes a .constprop clone.
static __attribute__ ((noinline)) long
spin (const std::vector<int> *v, int unused, int times)
{
  long s = 0;
  for (int t = 0; t < times; ++t)
    for (int x : *v)
      s += weigh (x & 63);
  return s + unused;
}

volatile long sink;

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 100;
  std::vector<int> v (2000);
  for (int i = 0; i < 2000; ++i)
    v[i] = i * 2654435761u;
  for (int r = 0; r < rounds; ++r)
    {
      std::map<int, std::string> m;
      sink = sink + churn<int> (m, 3000);
      std::map<long, std::string> ml;
      sink = sink + churn<long> (ml, 1000);
      std::sort (v.begin (), v.end (),
		 [] (int a, int b) { return (a ^ 0x55) < (b ^ 0x55); });
      std::reverse (v.begin (), v.end ());
      accumulator<double, 1000> acc;
      std::for_each (v.begin (), v.begin () + 100, std::ref (acc));
      sink = sink + acc.total;
      sink = sink + spin (&v, 0, 1);
      std::vector<shapes::shape *> shapes;
      for (int i = 0; i < 500; ++i)
	shapes.push_back (new shapes::square (i));
      for (shapes::shape *p : shapes)
	{
	  sink = sink + p->area ();
	  delete p;
	}
      std::function<long (int)> f = [&] (int k) { return weigh (k) + v[k]; };
      for (int i = 0; i < 200; ++i)
	sink = sink + f (i);
      sink = sink + twice (100000) + camlCxx__spin_1 (20000) + fib (20);
    }
  return 0;
}
