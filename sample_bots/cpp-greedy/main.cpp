// cpp-greedy: the greedy sample policy on the C++ SDK (sdk/cpp), over the referee's stdio
// transport. The SDK sends Hello, reads every message and exits 0 after the match.
#include <spite/spite.hpp>

int main() {
  return spite::run(
      [](const spite::Observation& observation, const spite::Decision&) -> spite::Choice {
        return spite::policies::greedy(observation);
      },
      {"cpp-greedy", "1.0.0"});
}
