#pragma once
// The matrix files a test walks: unit_tests/data, or ../shared/matrices in the
// executables compiled with LIBRA_TEST_SHARED_MATRICES.
#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

namespace libra::test {

inline std::vector<std::string> matrix_files(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      const auto dot = name.rfind('.');
      if (dot == std::string::npos) continue;
      const std::string ext = name.substr(dot);
      if (ext == ".mtx" || (ext == ".txt" && name != "README.txt"))
        files.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string matrix_dir() {
#if defined(LIBRA_TEST_SHARED_MATRICES)
  return LIBRA_SHARED_MATRICES_DIR;
#else
  return LIBRA_TEST_DATA_DIR;
#endif
}

}  // namespace libra::test
